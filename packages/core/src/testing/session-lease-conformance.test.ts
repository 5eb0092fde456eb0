import { describe, expect, test } from 'vitest'
import type { SessionStore } from '../session-store.js'
import { memorySessionStore } from './memory-stores.js'
import { sessionLeaseChecks, sessionLeaseConformance } from './session-lease-conformance.js'
import { StoreConformanceError } from './store-checks.js'

async function failedChecks(make: () => SessionStore): Promise<string[]> {
  try {
    await sessionLeaseConformance(make)
  } catch (error) {
    if (error instanceof StoreConformanceError) return error.failures.map((f) => f.check)
    throw error
  }
  return []
}

describe('sessionLeaseConformance', () => {
  for (const check of sessionLeaseChecks(memorySessionStore)) test(check.name, check.run)

  test('catches a store that grants every attempt', async () => {
    const make = (): SessionStore => {
      const inner = memorySessionStore()
      return {
        ...inner,
        async acquireLease(id, request) {
          const first = await inner.acquireLease?.(id, request)
          if (first?.acquired) return first
          await inner.acquireLease?.(id, { runId: 'x', ttlMs: 1 })
          return {
            acquired: true,
            lease: {
              sessionId: id,
              holder: first?.holder,
              ttlMs: 1,
              renew: async () => {},
              release: async () => true,
            },
          } as never
        },
      }
    }
    const failed = await failedChecks(make)
    expect(failed).toEqual(
      expect.arrayContaining([
        'a free session is leased; a second run is refused and told who holds it',
        'concurrent attempts on a free session: exactly one is granted',
      ]),
    )
  })

  test('a store without acquireLease fails every check', async () => {
    const make = (): SessionStore => {
      const { acquireLease: _, ...rest } = memorySessionStore()
      return rest
    }
    expect(await failedChecks(make)).toEqual(sessionLeaseChecks(make).map((c) => c.name))
  })

  test('rejects a makeStore that is not a function', () => {
    expect(() => sessionLeaseChecks(42 as never)).toThrow(/makeStore/)
  })
})
