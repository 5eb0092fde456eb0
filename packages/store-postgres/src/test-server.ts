// Test-only: the real PostgreSQL server of this test run (test-utils/postgres-global-setup.ts
// provides it: `.ci/run`'s server, one started for the run, or why there is none), and a fresh
// migrated database on it for each test file, so files running at once never share tables.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import type {} from '../../../test-utils/postgres-global-setup.js'
import { migrate } from './migrate.js'

/** The run's real server: `{ url }`, or `{ skip }` saying why there is none. */
export const realServer = inject('postgres')

/** The title suffix of a real-server suite: where it runs, or why it is skipped. */
export const realServerNote = 'url' in realServer ? '' : ` (skipped: ${realServer.skip})`

/** A migrated database of its own on the real server. */
export interface RealDatabase {
  /** Its connection URL. */
  url: string
  /** Drops it, ending connections still open. */
  drop(): Promise<void>
}

/** Run `f` with a client of `url`, closed afterwards. */
export async function withClient<T>(url: string, f: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** A new, migrated database on the run's real server, its name starting with `label`. */
export async function realDatabase(label: string): Promise<RealDatabase> {
  if (!('url' in realServer)) throw new Error(realServer.skip)
  const server = realServer.url
  const name = `ck_${label}_${randomBytes(4).toString('hex')}`
  await withClient(server, (admin) => admin.query(`CREATE DATABASE ${name}`))
  const url = new URL(server)
  url.pathname = `/${name}`
  await withClient(url.href, (client) => migrate(client))
  return {
    url: url.href,
    drop: async () => {
      await withClient(server, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      )
    },
  }
}
