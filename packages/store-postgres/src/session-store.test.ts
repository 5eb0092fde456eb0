import { type SessionEntry, ValidationError } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import type { PGlite } from '@electric-sql/pglite'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { StoreNotMigratedError } from './errors.js'
import { migrate } from './migrate.js'
import { INVALID_ENTRY_WARNING, postgresSessionStore } from './session-store.js'
import { customEntry, messageEntry, migratedPglite, turnEntries } from './test-support.js'

let db: PGlite
beforeAll(async () => {
  db = await migratedPglite()
}, 60_000)
afterAll(async () => {
  await db.close()
})

async function seqs(session: string): Promise<number[]> {
  const result = await db.query<{ seq: number }>(
    'SELECT seq::int AS seq FROM contextkit_sessions WHERE session_id = $1 ORDER BY seq',
    [session],
  )
  return result.rows.map((r) => r.seq)
}

describe('postgresSessionStore on PGlite', () => {
  test('an unknown session loads empty; append then load returns the entries in order', async () => {
    const store = postgresSessionStore(db)
    expect(await store.load('nobody')).toEqual({ entries: [], warnings: [] })
    const header = sessionHeader('s-basic', new Date('2026-01-01T00:00:00Z'))
    await store.append('s-basic', [header, ...turnEntries(1)])
    await store.append('s-basic', turnEntries(2))
    const { entries, warnings } = await store.load('s-basic')
    expect(warnings).toEqual([])
    expect(entries).toEqual([header, ...turnEntries(1), ...turnEntries(2)])
    expect(await seqs('s-basic')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  test('entries come back byte for byte: key order, NUL, lone surrogates, emoji, big numbers', async () => {
    const store = postgresSessionStore(db)
    const data = {
      zeta: 1,
      alpha: 'a\u0000b',
      lone: 'x\ud800y\udfffz',
      emoji: '😀 مرحبا',
      nested: { query: 'q', limit: 10, path: '/p' },
      big: 9007199254740991,
      tiny: 5e-324,
      list: [3, 1, 2],
    }
    const entry = customEntry(data, 'exact')
    await store.append('s-exact', [entry])
    const { entries } = await store.load('s-exact')
    expect(entries).toEqual([entry])
    expect(JSON.stringify(entries[0])).toBe(JSON.stringify(entry))
    const call = turnEntries(7)[1]!
    await store.append('s-exact', [call])
    const loaded = (await store.load('s-exact')).entries[1]
    expect(JSON.stringify(loaded)).toBe(JSON.stringify(call))
  })

  test('concurrent appends to one session get seq 1..n with no gap, no duplicate, no interleaving', async () => {
    const store = postgresSessionStore(db)
    const batches = Array.from({ length: 40 }, (_, i) => turnEntries(i, `w${i}-`))
    await Promise.all(batches.map((batch) => store.append('s-race', batch)))
    expect(await seqs('s-race')).toEqual(Array.from({ length: 160 }, (_, i) => i + 1))
    const { entries } = await store.load('s-race')
    expect(entries).toHaveLength(160)
    // every batch is contiguous and in its own order
    for (let i = 0; i < entries.length; i += 4) {
      const prefix = /^(w\d+-)/.exec(entries[i]!.type === 'message' ? entries[i]!.id : '')?.[1]
      expect(entries.slice(i, i + 4).map((e) => (e.type === 'message' ? e.id : ''))).toEqual(
        turnEntries(Number(prefix?.slice(1, -1)), prefix).map((e) =>
          e.type === 'message' ? e.id : '',
        ),
      )
    }
  })

  test('a batch with one invalid entry is refused whole with a ValidationError', async () => {
    const store = postgresSessionStore(db)
    const bad = { ...messageEntry('x'), message: { role: 'robot', content: [] } }
    const error = await store
      .append('s-bad', [messageEntry('ok'), bad as unknown as SessionEntry])
      .catch((e: unknown) => e)
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as ValidationError).issues[0]?.path).toMatch(/^1\./)
    expect(await store.load('s-bad')).toEqual({ entries: [], warnings: [] })
    expect(await store.list()).not.toContain('s-bad')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const big = customEntry({ n: 1n })
    for (const entries of [[customEntry(cyclic)], [big], 'not an array', null]) {
      const e = await store.append('s-bad', entries as SessionEntry[]).catch((x: unknown) => x)
      expect(ValidationError.isInstance(e)).toBe(true)
    }
    const header = await store.append('s-bad', [sessionHeader('s-other')]).catch((x: unknown) => x)
    expect(ValidationError.isInstance(header)).toBe(true)
    expect((header as ValidationError).issues).toEqual([
      { path: '0.id', message: 'expected "s-bad"' },
    ])
    expect(await seqs('s-bad')).toEqual([])
  })

  test('unsafe session ids are a ValidationError and reach no SQL', async () => {
    const store = postgresSessionStore(db)
    const unsafe = [
      '',
      '../etc',
      "x'; DROP TABLE contextkit_sessions; --",
      'a b',
      'a/b',
      '.hidden',
      'x'.repeat(201),
      'é',
      42,
      null,
    ]
    for (const id of unsafe) {
      for (const call of [
        () => store.load(id as string),
        () => store.append(id as string, [messageEntry('x')]),
        () => store.delete(id as string),
      ]) {
        const error = await call().catch((e: unknown) => e)
        expect(ValidationError.isInstance(error), String(id)).toBe(true)
      }
    }
    const tables = await db.query("SELECT to_regclass('contextkit_sessions') IS NOT NULL AS ok")
    expect(tables.rows).toEqual([{ ok: true }])
  })

  test('list is sorted by code unit and delete removes a session and its entries', async () => {
    await db.query('CREATE SCHEMA IF NOT EXISTS listing')
    await migrate(db, { sessionTable: 'listing.sessions', stateTable: 'listing.state' })
    const store = postgresSessionStore(db, { table: 'listing.sessions' })
    expect(await store.list()).toEqual([])
    const ids = ['b', 'B', 'a-1', 'a.1', 'a_1', 'Z9', '0', 'a']
    for (const id of ids) await store.append(id, [messageEntry(id)])
    expect(await store.list()).toEqual([...ids].sort())
    expect(await store.delete('a.1')).toBe(true)
    expect(await store.delete('a.1')).toBe(false)
    expect(await store.delete('never')).toBe(false)
    expect(await store.load('a.1')).toEqual({ entries: [], warnings: [] })
    const left = await db.query(
      `SELECT count(*)::int AS n FROM listing.sessions WHERE session_id = 'a.1'`,
    )
    expect(left.rows).toEqual([{ n: 0 }])
    expect(await store.list()).toEqual(ids.filter((id) => id !== 'a.1').sort())
    // a deleted session starts again at seq 1
    await store.append('a.1', [messageEntry('again')])
    const again = await db.query(
      `SELECT seq::int AS seq FROM listing.sessions WHERE session_id = 'a.1'`,
    )
    expect(again.rows).toEqual([{ seq: 1 }])
  })

  test('a table that was never migrated gives StoreNotMigratedError', async () => {
    const store = postgresSessionStore(db, { table: 'never_migrated' })
    for (const call of [
      () => store.list(),
      () => store.load('x'),
      () => store.append('x', [messageEntry('x')]),
    ]) {
      const error = await call().catch((e: unknown) => e)
      expect(StoreNotMigratedError.isInstance(error)).toBe(true)
      expect((error as StoreNotMigratedError).details.sqlState).toBe('42P01')
    }
  })

  test('an empty batch writes nothing', async () => {
    const store = postgresSessionStore(db)
    await store.append('s-empty', [])
    expect(await store.list()).not.toContain('s-empty')
  })

  test('rows edited into something else are skipped with a warning naming their seq', async () => {
    const store = postgresSessionStore(db)
    await store.append('s-edited', [
      messageEntry('one'),
      messageEntry('two'),
      messageEntry('three'),
    ])
    await db.query(
      `UPDATE contextkit_sessions SET entry = '{"type":"message","id":""}' WHERE session_id = $1 AND seq = 2`,
      ['s-edited'],
    )
    const { entries, warnings } = await store.load('s-edited')
    expect(entries.map((e) => (e.type === 'message' ? e.message.content[0] : null))).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'three' },
    ])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ code: INVALID_ENTRY_WARNING, line: 2 })
    await store.append('s-edited', [messageEntry('four')])
    expect(await seqs('s-edited')).toEqual([1, 2, 3, 4])
  })

  test('bad options and a bad db are a ValidationError', () => {
    for (const options of [
      { table: 'Bad' },
      { table: 'a;b' },
      { table: 'x'.repeat(49) },
      { tabel: 'x' },
    ]) {
      expect(() => postgresSessionStore(db, options as { table: string })).toThrow(ValidationError)
    }
    expect(() => postgresSessionStore({} as PGlite)).toThrow(ValidationError)
  })

  test('property: any sequence of valid batches loads back as their concatenation', async () => {
    const store = postgresSessionStore(db)
    let run = 0
    const text = anyCodePoints({ maxLength: 40 })
    const batch = fc.array(
      fc.oneof(
        text.map((t) => messageEntry(t)),
        fc.jsonValue({ maxDepth: 3 }).map((v) => customEntry(v)),
      ),
      { maxLength: 5 },
    )
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { maxLength: 5 }), async (batches) => {
        const id = `prop-${++run}`
        for (const b of batches) await store.append(id, b)
        const { entries, warnings } = await store.load(id)
        expect(warnings).toEqual([])
        expect(JSON.stringify(entries)).toBe(JSON.stringify(batches.flat()))
      }),
      { numRuns: 40 },
    )
  })
})
