import { type SessionEntry, SessionTooLargeError } from '@contextkit/core'
import { SESSION_ENTRY_MAX_BYTES, sessionHeader } from '@contextkit/core/store'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Queryable } from './db.js'
import { migrate } from './migrate.js'
import { PAGE_BYTES } from './session-read.js'
import { postgresSessionStore } from './session-store.js'
import { type RealDatabase, realDatabase, realServer, realServerNote } from './test-server.js'

// A 100,000-entry session loads from its newest compaction without reading every row: each
// statement the store sent is run again under EXPLAIN ANALYZE and the rows its scans of the
// entry table read are added up. On PGlite, and on the run's real server when there is one.

const TS = '2026-01-01T00:00:00.000Z'
const ENTRIES = 100_000

function message(n: number, text = `turn ${n}`): SessionEntry {
  return {
    type: 'message',
    id: `m${n}`,
    parentId: n === 0 ? null : `m${n - 1}`,
    ts: TS,
    message: { role: n % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] },
  }
}

/** A database that records every statement before passing it to `db` (the real one). */
function recording(db: Queryable): { db: Queryable; sent: Array<[string, unknown[]]> } {
  const sent: Array<[string, unknown[]]> = []
  return {
    sent,
    db: {
      query: (text: string, params?: unknown[]) => {
        sent.push([text, params ?? []])
        return db.query(text, params)
      },
    },
  }
}

interface PlanNode {
  'Relation Name'?: string
  'Node Type': string
  'Actual Rows': number
  'Actual Loops': number
  Plans?: PlanNode[]
}

/** Rows read from `table` by the scans of one plan, and the scans' node types. */
function scans(node: PlanNode, table: string, out = { rows: 0, types: [] as string[] }) {
  if (node['Relation Name'] === table) {
    out.rows += node['Actual Rows'] * node['Actual Loops']
    out.types.push(node['Node Type'])
  }
  for (const child of node.Plans ?? []) scans(child, table, out)
  return out
}

/** Run each recorded select again under EXPLAIN ANALYZE; the rows its scans read, summed. */
async function rowsRead(db: Queryable, sent: Array<[string, unknown[]]>) {
  const total = { rows: 0, types: [] as string[], statements: 0 }
  for (const [text, params] of sent) {
    if (!/^\s*SELECT/i.test(text)) continue
    const result = (await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params)) as {
      rows: Array<Record<string, unknown>>
    }
    const cell = Object.values(result.rows[0] ?? {})[0]
    const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as Array<{ Plan: PlanNode }>
    const found = scans(plan[0]?.Plan as PlanNode, 'contextkit_sessions')
    total.rows += found.rows
    total.types.push(...found.types)
    total.statements++
  }
  return total
}

/** The session: a header, 100,000 messages, a compaction keeping the last 10, 5 more. */
async function fill(db: Queryable): Promise<void> {
  const store = postgresSessionStore(db)
  const all = [
    sessionHeader('long', new Date(TS)),
    ...Array.from({ length: ENTRIES }, (_, n) => message(n)),
  ]
  for (let at = 0; at < all.length; at += 20_000)
    await store.append('long', all.slice(at, at + 20_000))
  await store.append('long', [
    {
      type: 'compaction',
      id: 'k',
      parentId: `m${ENTRIES - 1}`,
      ts: TS,
      summary: 'A long session.',
      firstKeptId: `m${ENTRIES - 10}`,
    },
    ...Array.from({ length: 5 }, (_, i) => message(ENTRIES + i)),
  ])
}

/** What both databases must show. */
async function checkTail(db: Queryable): Promise<void> {
  const { db: spy, sent } = recording(db)
  const tail = await postgresSessionStore(spy).loadTail('long')
  expect(tail.warnings).toEqual([])
  expect(tail.entries.map((e) => e.id)).toEqual([
    'long',
    ...Array.from({ length: 10 }, (_, i) => `m${ENTRIES - 10 + i}`),
    'k',
    ...Array.from({ length: 5 }, (_, i) => `m${ENTRIES + i}`),
  ])
  const read = await rowsRead(db, sent)
  // one backward page of 64 rows, then the header: never the 100,016 rows
  expect(read.statements).toBe(2)
  expect(read.rows).toBeLessThanOrEqual(64 + 1)
  expect(read.types.every((t) => t.startsWith('Index'))).toBe(true)
}

describe('a 100,000-entry session on PGlite', () => {
  let db: PGlite
  beforeAll(async () => {
    db = await PGlite.create()
    await migrate(db)
    await fill(db)
  }, 300_000)
  afterAll(() => db.close())

  test('loadTail reads one page from the end and the header, by the primary key', async () => {
    await checkTail(db)
  }, 120_000)

  test('stream reads it a page at a time: every entry, in order', async () => {
    const { db: spy, sent } = recording(db)
    let count = 0
    let last = ''
    for await (const entry of postgresSessionStore(spy).stream('long')) {
      count++
      last = entry.id
    }
    expect([count, last]).toEqual([ENTRIES + 7, `m${ENTRIES + 4}`])
    expect(sent.length).toBe(Math.ceil((ENTRIES + 7) / 256))
  }, 120_000)

  test('pages are cut at 16 MiB: entries of 3 MiB load whole, six a page', async () => {
    const store = postgresSessionStore(db)
    const big = 'b'.repeat(3 * 1024 * 1024)
    await store.append('wide', [sessionHeader('wide', new Date(TS))])
    await store.append(
      'wide',
      Array.from({ length: 7 }, (_, n) => message(n, big)),
    )
    const { db: spy, sent } = recording(db)
    const loaded = await postgresSessionStore(spy).load('wide')
    expect(loaded.entries).toHaveLength(8)
    expect(
      loaded.entries.every((e) => e.type !== 'message' || e.message.content[0]?.type === 'text'),
    ).toBe(true)
    // the header and six rows of 3 MiB, then the seventh (its 18 MiB before it pass PAGE_BYTES)
    expect(PAGE_BYTES).toBe(16 * 1024 * 1024)
    expect(sent.length).toBe(2)
  }, 120_000)
})

describe('append past the limits of one statement', () => {
  let db: PGlite
  beforeAll(async () => {
    db = await PGlite.create()
    await migrate(db)
  }, 120_000)
  afterAll(() => db.close())

  test('a batch of 40 MiB goes in as several inserts of one transaction, in order', async () => {
    const store = postgresSessionStore(db)
    const text = 'c'.repeat(1024 * 1024)
    const batch = [
      sessionHeader('batch', new Date(TS)),
      ...Array.from({ length: 40 }, (_, n) => message(n, text)),
    ]
    const { db: spy, sent } = recording(db)
    await postgresSessionStore(spy).append('batch', batch)
    expect(sent.filter(([sql]) => sql.includes('json_array_elements'))).toHaveLength(2)
    const loaded = await store.load('batch')
    expect(loaded.entries.map((e) => e.id)).toEqual(batch.map((e) => e.id))
    const { rows } = await db.query<{ seq: number }>(
      'SELECT seq::int AS seq FROM contextkit_sessions WHERE session_id = $1 ORDER BY seq',
      ['batch'],
    )
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1))
  }, 120_000)

  test('an entry over SESSION_ENTRY_MAX_BYTES is a SessionTooLargeError, nothing written', async () => {
    const store = postgresSessionStore(db)
    await store.append('limit', [sessionHeader('limit', new Date(TS))])
    const huge = message(1, 'あ'.repeat(Math.ceil(SESSION_ENTRY_MAX_BYTES / 3)))
    const error = await store.append('limit', [message(0), huge]).catch((e: unknown) => e)
    expect(SessionTooLargeError.isInstance(error)).toBe(true)
    expect((error as SessionTooLargeError).details).toMatchObject({ what: 'entry', index: 1 })
    expect((await store.load('limit')).entries).toHaveLength(1)
  }, 120_000)
})

describe.skipIf(!('url' in realServer))(
  `a 100,000-entry session on a real PostgreSQL server${realServerNote}`,
  () => {
    let database: RealDatabase
    let pool: pg.Pool
    beforeAll(async () => {
      database = await realDatabase('size')
      pool = new pg.Pool({ connectionString: database.url, max: 2 })
      await fill(pool)
      await pool.query('ANALYZE contextkit_sessions')
    }, 300_000)
    afterAll(async () => {
      await pool?.end()
      await database?.drop()
    })

    test('loadTail reads one page from the end and the header, by the primary key', async () => {
      await checkTail(pool)
    }, 120_000)
  },
)
