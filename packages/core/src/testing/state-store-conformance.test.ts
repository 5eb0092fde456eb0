import { describe, expect, test } from 'vitest'
import type { StateStore } from '../state-store.js'
import { memoryStateStore } from './memory-stores.js'
import { stateStoreChecks, stateStoreConformance } from './state-store-conformance.js'
import { StoreConformanceError } from './store-checks.js'

async function failedChecks(make: () => StateStore<unknown>): Promise<string[]> {
  try {
    await stateStoreConformance(make)
  } catch (error) {
    if (error instanceof StoreConformanceError) return error.failures.map((f) => f.check)
    throw error
  }
  return []
}

const name = (prefix: string) => {
  const found = stateStoreChecks(memoryStateStore).find((c) => c.name.startsWith(prefix))
  if (!found) throw new Error(`no check named ${prefix}`)
  return found.name
}

describe('stateStoreConformance', () => {
  test('passes a correct store, with the default values and with a sample of its own', async () => {
    const report = await stateStoreConformance(memoryStateStore)
    expect(report.passed).toEqual(stateStoreChecks(memoryStateStore).map((c) => c.name))
    const strings = await stateStoreConformance(() => memoryStateStore<string>(), {
      sample: (n) => `value ${n}`,
    })
    expect(strings.passed).toHaveLength(report.passed.length)
  })

  test('catches a store that ignores expectedRevision (a lost update)', async () => {
    const make = (): StateStore<unknown> => {
      const inner = memoryStateStore<unknown>()
      return { load: inner.load, save: (id, state) => inner.save(id, state) }
    }
    expect(await failedChecks(make)).toEqual(
      expect.arrayContaining([name('compare-and-set'), name('racing saves')]),
    )
  })

  test('catches a store whose agents share one value', async () => {
    const make = (): StateStore<unknown> => {
      const inner = memoryStateStore<unknown>()
      return { load: () => inner.load('all'), save: (_id, s, o) => inner.save('all', s, o) }
    }
    expect(await failedChecks(make)).toContain(name('agents are kept apart'))
  })

  test('a failure report names every failed check at once', async () => {
    const make = (): StateStore<unknown> => ({
      load: async () => null,
      save: async () => ({ revision: 1 }),
    })
    const error = await stateStoreConformance(make).catch((e: unknown) => e)
    expect(StoreConformanceError.isInstance(error)).toBe(true)
    expect((error as StoreConformanceError).code).toBe('store_conformance')
    expect((error as StoreConformanceError).failures.length).toBeGreaterThan(2)
  })

  test('rejects a makeStore that is not a function', () => {
    expect(() => stateStoreChecks(42 as never)).toThrow(/makeStore/)
  })
})
