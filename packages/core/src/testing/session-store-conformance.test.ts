import { describe, expect, test } from 'vitest'
import type { SessionEntry, SessionStore } from '../session-store.js'
import { memorySessionStore } from './memory-stores.js'
import { sessionStoreChecks, sessionStoreConformance } from './session-store-conformance.js'
import { StoreConformanceError } from './store-checks.js'

async function failedChecks(make: () => SessionStore): Promise<string[]> {
  try {
    await sessionStoreConformance(make)
  } catch (error) {
    if (error instanceof StoreConformanceError) return error.failures.map((f) => f.check)
    throw error
  }
  return []
}

const name = (prefix: string) => {
  const found = sessionStoreChecks(memorySessionStore).find((c) => c.name.startsWith(prefix))
  if (!found) throw new Error(`no check named ${prefix}`)
  return found.name
}

describe('sessionStoreConformance', () => {
  test('passes a correct store that is not file based', async () => {
    const report = await sessionStoreConformance(memorySessionStore)
    expect(report.passed).toEqual(sessionStoreChecks(memorySessionStore).map((c) => c.name))
  })

  test('catches a store that lets unsafe ids through', async () => {
    const make = () => {
      const inner = memorySessionStore()
      return {
        ...inner,
        delete: async (id) => (typeof id === 'string' && id.length > 0 ? inner.delete(id) : false),
      } as SessionStore
    }
    expect(await failedChecks(make)).toEqual([name('unsafe ids')])
  })

  test('catches a store whose stream skips an entry load returns', async () => {
    const make = (): SessionStore => {
      const inner = memorySessionStore()
      const stream = (id: string) => {
        const all = inner.stream?.(id)
        return {
          warnings: [],
          async *[Symbol.asyncIterator]() {
            let n = 0
            for await (const entry of all ?? []) if (n++ !== 3) yield entry
          },
        }
      }
      return { ...inner, stream }
    }
    expect(await failedChecks(make)).toEqual([name('stream (when')])
  })

  test('catches a store whose list is not sorted', async () => {
    const make = (): SessionStore => {
      const inner = memorySessionStore()
      return { ...inner, list: async () => (await inner.list()).reverse() }
    }
    expect(await failedChecks(make)).toContain(name('list names'))
  })

  test('catches a store that writes part of a bad batch', async () => {
    const make = (): SessionStore => {
      const inner = memorySessionStore()
      return {
        ...inner,
        async append(id, entries) {
          if (!Array.isArray(entries)) return inner.append(id, entries)
          for (const entry of entries) await inner.append(id, [entry])
        },
      }
    }
    const failed = await failedChecks(make)
    expect(failed).toContain(name('a batch with an invalid entry'))
  })
})

describe('sessionStoreConformance, more broken stores', () => {
  test('catches a store that interleaves concurrent batches', async () => {
    const make = (): SessionStore => {
      const inner = memorySessionStore()
      return {
        ...inner,
        async append(id, entries) {
          for (const entry of entries) {
            await new Promise((resolve) => setTimeout(resolve, 0))
            await inner.append(id, [entry])
          }
        },
      }
    }
    expect(await failedChecks(make)).toContain(name('concurrent appends'))
  })

  test('catches a store that mangles text', async () => {
    const make = (): SessionStore => {
      const inner = memorySessionStore()
      return {
        ...inner,
        async load(id) {
          const loaded = await inner.load(id)
          const text = JSON.stringify(loaded.entries).replaceAll('\\u0000', '')
          return { ...loaded, entries: JSON.parse(text) as SessionEntry[] }
        },
      }
    }
    expect(await failedChecks(make)).toEqual([name('unicode')])
  })

  test('catches a store whose delete always says yes, and names every failure at once', async () => {
    const make = (): SessionStore => {
      const inner = memorySessionStore()
      return {
        ...inner,
        delete: async (id) => (await inner.delete(id)) || true,
        list: async () => (await inner.list()).reverse(),
      }
    }
    const failed = await failedChecks(make)
    expect(failed).toEqual(
      expect.arrayContaining([name('an unknown id'), name('delete removes'), name('list names')]),
    )
  })

  test('rejects a makeStore that is not a function', () => {
    expect(() => sessionStoreChecks(42 as never)).toThrow(/makeStore/)
  })
})
