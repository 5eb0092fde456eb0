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
  /**
   * Drops it: first waits (at most {@link CLOSE_WAIT_MS}) for connections that are closing to be
   * gone, then ends any still open.
   */
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
    drop: () =>
      withClient(server, async (admin) => {
        await closedConnections(admin, name)
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }),
  }
}

/** How long a drop waits for connections being closed to go before it ends them. */
const CLOSE_WAIT_MS = 10_000

/**
 * Wait until no connection to database `name` is left, or {@link CLOSE_WAIT_MS} have passed. A
 * pool's `end()` resolves before its clients' sockets are closed; a forced drop in that moment
 * ends them with an error (57P01) that the pool passes on as an `error` event, unhandled when the
 * test's pool has no listener (seen under load: three unhandled errors failed a passing run).
 */
async function closedConnections(admin: pg.Client, name: string): Promise<void> {
  const deadline = Date.now() + CLOSE_WAIT_MS
  while (Date.now() < deadline) {
    const open = await admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
      [name],
    )
    if (open.rows[0]?.n === 0) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
