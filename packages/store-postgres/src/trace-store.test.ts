import { type TraceEvent, type TraceReader, ValidationError } from '@contextkit/core'
import type { PGlite } from '@electric-sql/pglite'
import fc from 'fast-check'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { PostgresDb } from './db.js'
import { type RealDatabase, realDatabase, realServer, realServerNote } from './test-server.js'
import { migratedPglite } from './test-support.js'
import { postgresTrace, postgresTraceReader } from './trace-store.js'

async function readAll(reader: TraceReader, id: string, from = 0): Promise<TraceEvent[]> {
  const events: TraceEvent[] = []
  await reader.readForward(id, from, await reader.end(id), (e) => events.push(e))
  return events
}

async function newestFirst(reader: TraceReader, id: string, take: number): Promise<number[]> {
  const seqs: number[] = []
  await reader.readBackward(id, await reader.end(id), (e) => {
    seqs.push(e.seq)
    return seqs.length < take
  })
  return seqs
}

/** The same checks on every database: PGlite in-process and, when there is one, a real server. */
function traceChecks(open: () => PostgresDb) {
  test('events come back in order with their stage and data; messages as digests', async () => {
    const db = open()
    const trace = postgresTrace(db, 'order', { now: () => 0 })
    trace.record('prepare', { step: 1 })
    trace.record('loop.request', { messages: [{ role: 'user', content: 'secret text' }] })
    trace.record('loop.response', { text: 'nul \u0000 and \ud800 lone surrogate' })
    await trace.flush()
    const events = await readAll(postgresTraceReader(db), 'order')
    expect(events.map((e) => [e.seq, e.stage])).toEqual([
      [0, 'prepare'],
      [1, 'loop.request'],
      [2, 'loop.response'],
    ])
    expect(events[0]).toEqual({
      ts: '1970-01-01T00:00:00.000Z',
      seq: 0,
      stage: 'prepare',
      data: { step: 1 },
    })
    expect(JSON.stringify(events[1]?.data)).not.toContain('secret text')
    expect(events[1]?.data).toMatchObject({ messages: { messages: 1, roles: ['user'] } })
    expect(events[2]?.data).toEqual({ text: 'nul \u0000 and \ud800 lone surrogate' })
    expect(trace.failures).toBe(0)
  })

  test('1,200 events recorded without waiting are all written, in order, in batches', async () => {
    const db = open()
    const trace = postgresTrace(db, 'many')
    for (let i = 0; i < 1_200; i++) trace.record(i % 2 ? 'odd' : 'even', { i })
    await trace.flush()
    const reader = postgresTraceReader(db, { batchRows: 128 })
    const events = await readAll(reader, 'many')
    expect(events.map((e) => e.data.i)).toEqual(Array.from({ length: 1_200 }, (_, i) => i))
    expect(await newestFirst(reader, 'many', 300)).toEqual(
      Array.from({ length: 300 }, (_, i) => 1_199 - i),
    )
    const odd: TraceEvent[] = []
    const end = await reader.end('many')
    const after = await reader.readForward('many', 0, end, (e) => odd.push(e), new Set(['odd']))
    expect(after).toBe(end)
    expect(odd).toHaveLength(600)
    expect(odd.every((e) => e.stage === 'odd')).toBe(true)
  })

  test('reading from a position returns only what came after it; sessions stay apart', async () => {
    const db = open()
    const a = postgresTrace(db, 'apart-a')
    const b = postgresTrace(db, 'apart-b')
    a.record('one')
    b.record('other')
    await Promise.all([a.flush(), b.flush()])
    const reader = postgresTraceReader(db)
    const mark = await reader.end('apart-a')
    a.record('two')
    a.record('three')
    await a.flush()
    expect((await readAll(reader, 'apart-a', mark)).map((e) => e.stage)).toEqual(['two', 'three'])
    expect((await readAll(reader, 'apart-b')).map((e) => e.stage)).toEqual(['other'])
    expect(await reader.end('nobody')).toBe(0)
    expect(await readAll(reader, 'nobody')).toEqual([])
  })
}

let pglite: PGlite
beforeAll(async () => {
  pglite = await migratedPglite()
}, 60_000)
afterAll(async () => {
  await pglite.close()
})

describe('postgresTrace and postgresTraceReader on PGlite', () => {
  traceChecks(() => pglite)

  test('property: what is recorded is what is read, forward and newest first', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ stage: fc.constantFrom('a', 'b', 'c'), n: fc.integer() }), {
          maxLength: 40,
        }),
        fc.integer({ min: 1, max: 7 }),
        async (events, batchRows) => {
          const id = `prop-${++run}`
          const trace = postgresTrace(pglite, id)
          for (const e of events) trace.record(e.stage, { n: e.n })
          await trace.flush()
          const reader = postgresTraceReader(pglite, { batchRows })
          const read = await readAll(reader, id)
          expect(read.map((e) => [e.stage, e.data.n])).toEqual(events.map((e) => [e.stage, e.n]))
          const back = await newestFirst(reader, id, events.length + 1)
          expect(back).toEqual(events.map((_, i) => i).reverse())
        },
      ),
      { numRuns: 25 },
    )
  })

  test('a database that refuses the insert costs the events, never the run', async () => {
    const trace = postgresTrace(pglite, 'refused', { table: 'not_migrated_traces' })
    expect(() => trace.record('prepare', { step: 1 })).not.toThrow()
    trace.record('loop.request')
    await trace.flush()
    expect(trace.failures).toBe(2)
  })

  test('bad arguments are ValidationErrors', () => {
    expect(() => postgresTrace({} as PostgresDb, 'x')).toThrow(ValidationError)
    expect(() => postgresTrace(pglite, '../escape')).toThrow(ValidationError)
    expect(() => postgresTrace(pglite, 'x', { table: 'Bad-Name' })).toThrow(ValidationError)
    expect(() => postgresTraceReader(pglite, { batchRows: 0 })).toThrow(ValidationError)
    expect(() => postgresTraceReader(pglite, { extra: 1 } as never)).toThrow(ValidationError)
  })

  test('end is one read of the primary key (session_id, id)', async () => {
    await pglite.query('SET enable_seqscan = off')
    const plan = await pglite.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT coalesce(max(id), 0) FROM contextkit_traces WHERE session_id = 'many'`,
    )
    await pglite.query('RESET enable_seqscan')
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Only Scan|Index Scan/)
  })
})

describe.skipIf(!('url' in realServer))(
  `postgresTrace and postgresTraceReader on a real PostgreSQL server${realServerNote}`,
  () => {
    let database: RealDatabase
    let pool: pg.Pool
    beforeAll(async () => {
      database = await realDatabase('traces')
      pool = new pg.Pool({ connectionString: database.url, max: 4 })
    }, 60_000)
    afterAll(async () => {
      await pool?.end()
      await database?.drop()
    })
    traceChecks(() => pool)
  },
)
