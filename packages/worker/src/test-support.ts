// Test-only helpers over the run's real PostgreSQL server (see store-postgres' test-server.ts,
// whose fresh migrated databases these tests use too).
import type { SessionEntry } from '@contextkit/core'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'

import {
  type RealDatabase,
  realDatabase,
  withClient,
} from '../../store-postgres/src/test-server.js'
import { TOOL_RUNS_DDL } from './test-scenario.js'

export {
  type RealDatabase,
  realDatabase,
  realServer,
  realServerNote,
  withClient,
} from '../../store-postgres/src/test-server.js'

/**
 * A fresh migrated database (with the scenario's tool-runs table) and a pool of `max`
 * connections to it for the describe block this is called in; dropped after it.
 */
export function scenarioDatabase(
  label: string,
  max: number,
): { db: () => RealDatabase; pool: () => pg.Pool } {
  let db: RealDatabase | undefined
  let pool: pg.Pool | undefined
  beforeAll(async () => {
    db = await realDatabase(label)
    pool = new pg.Pool({ connectionString: db.url, max })
    await pool.query(TOOL_RUNS_DDL)
  }, 60_000)
  afterAll(async () => {
    await pool?.end()
    await db?.drop()
  })
  return { db: () => db!, pool: () => pool! }
}

/** The texts of a session's messages in log order, `user:` or `assistant:` before each. */
export function transcript(entries: readonly SessionEntry[]): string[] {
  const out: string[] = []
  for (const e of entries) {
    if (e.type !== 'message') continue
    for (const block of e.message.content) {
      if (block.type === 'text') out.push(`${e.message.role}:${block.text}`)
      if (block.type === 'tool_result') out.push(`result:${JSON.stringify(block.content)}`)
    }
  }
  return out
}

/** Jobs of `queue` not completed (created, retry, active, failed): 0 when nothing is stuck. */
export async function unfinishedJobs(url: string, queue: string): Promise<number> {
  return withClient(url, async (c) => {
    const r = await c.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state <> 'completed'`,
      [queue],
    )
    return (r.rows[0] as { n: number }).n
  })
}
