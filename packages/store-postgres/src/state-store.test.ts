import { RevisionConflictError, ValidationError } from '@contextkit/core'
import type { PGlite } from '@electric-sql/pglite'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { StoreNotMigratedError } from './errors.js'
import { postgresStateStore } from './state-store.js'
import { migratedPglite } from './test-support.js'

let db: PGlite
beforeAll(async () => {
  db = await migratedPglite()
}, 60_000)
afterAll(async () => {
  await db.close()
})

async function conflictOf(promise: Promise<unknown>): Promise<RevisionConflictError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(RevisionConflictError.isInstance(error)).toBe(true)
  return error as RevisionConflictError
}

describe('postgresStateStore on PGlite', () => {
  test('load of an unknown agent is null; saves count revisions from 1', async () => {
    const store = postgresStateStore<{ n: number }>(db)
    expect(await store.load('agent-a')).toBeNull()
    expect(await store.save('agent-a', { n: 1 })).toEqual({ revision: 1 })
    expect(await store.save('agent-a', { n: 2 })).toEqual({ revision: 2 })
    expect(await store.load('agent-a')).toEqual({ state: { n: 2 }, revision: 2 })
  })

  test('compare-and-set: the expected revision wins, a stale one is a RevisionConflictError', async () => {
    const store = postgresStateStore<string>(db)
    expect(await store.save('cas', 'first', { expectedRevision: 0 })).toEqual({ revision: 1 })
    const again = await conflictOf(store.save('cas', 'lost', { expectedRevision: 0 }))
    expect(again).toMatchObject({ expectedRevision: 0, actualRevision: 1, recoverable: true })
    expect(await store.save('cas', 'second', { expectedRevision: 1 })).toEqual({ revision: 2 })
    const stale = await conflictOf(store.save('cas', 'stale', { expectedRevision: 1 }))
    expect(stale).toMatchObject({ expectedRevision: 1, actualRevision: 2 })
    const ahead = await conflictOf(store.save('cas', 'ahead', { expectedRevision: 9 }))
    expect(ahead.actualRevision).toBe(2)
    const missing = await conflictOf(store.save('nobody', 'x', { expectedRevision: 3 }))
    expect(missing.actualRevision).toBe(0)
    expect(await store.load('nobody')).toBeNull()
    expect(await store.load('cas')).toEqual({ state: 'second', revision: 2 })
  })

  test('racing saves on one revision: exactly one wins, the others conflict', async () => {
    const store = postgresStateStore<number>(db)
    await store.save('race', 0)
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => store.save('race', i + 1, { expectedRevision: 1 })),
    )
    const won = results.filter((r) => r.status === 'fulfilled')
    expect(won).toHaveLength(1)
    for (const r of results) {
      if (r.status === 'rejected') expect(RevisionConflictError.isInstance(r.reason)).toBe(true)
    }
    expect((await store.load('race'))?.revision).toBe(2)
  })

  test('any JSON value round-trips exactly, NUL and lone surrogates included', async () => {
    const store = postgresStateStore(db)
    let i = 0
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const id = `json-${++i}`
        await store.save(id, value)
        const loaded = await store.load(id)
        expect(JSON.stringify(loaded?.state)).toBe(JSON.stringify(value))
      }),
      { numRuns: 60 },
    )
    const tricky = { b: 'a\u0000b', a: '\ud83d', z: [1, { y: 2, x: 1 }] }
    await store.save('tricky', tricky)
    expect(JSON.stringify((await store.load('tricky'))?.state)).toBe(JSON.stringify(tricky))
  })

  test('bad agent ids, states and options are a ValidationError', async () => {
    const store = postgresStateStore(db)
    for (const id of ['', '../x', "a'; DELETE FROM contextkit_state; --", 'a b', 7, null]) {
      for (const call of [() => store.load(id as string), () => store.save(id as string, 1)]) {
        expect(ValidationError.isInstance(await call().catch((e: unknown) => e))).toBe(true)
      }
    }
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    for (const state of [undefined, () => 1, 1n, cyclic]) {
      const error = await store.save('ok', state).catch((e: unknown) => e)
      expect(ValidationError.isInstance(error)).toBe(true)
    }
    for (const expectedRevision of [-1, 1.5, '1', Number.NaN]) {
      const error = await store
        .save('ok', 1, { expectedRevision } as { expectedRevision: number })
        .catch((e: unknown) => e)
      expect(ValidationError.isInstance(error)).toBe(true)
    }
    expect(await store.load('ok')).toBeNull()
    expect(() => postgresStateStore(db, { table: 'State' })).toThrow(ValidationError)
    expect(() => postgresStateStore(null as unknown as PGlite)).toThrow(ValidationError)
  })

  test('a table that was never migrated gives StoreNotMigratedError', async () => {
    const store = postgresStateStore(db, { table: 'no_state_here' })
    const error = await store.load('a').catch((e: unknown) => e)
    expect(StoreNotMigratedError.isInstance(error)).toBe(true)
  })
})
