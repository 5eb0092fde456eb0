// Test-only helpers over the run's real PostgreSQL server (see store-postgres' test-server.ts,
// whose fresh migrated databases these tests use too).
import type { SessionEntry } from '@contextkit/core'
import pg from 'pg'

export {
  type RealDatabase,
  realDatabase,
  realServer,
  realServerNote,
} from '../../store-postgres/src/test-server.js'

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
