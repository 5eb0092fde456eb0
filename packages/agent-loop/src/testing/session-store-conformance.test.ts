import { join } from 'node:path'
import {
  assertSessionId,
  parseWith,
  type SessionEntry,
  SessionEntrySchema,
  type SessionStore,
  ValidationError,
} from '@contextkit/core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import * as z from 'zod'
import { jsonlSessionStore } from '../session/jsonl-store.js'
import { tempDir } from '../session/test-support.js'
import {
  SessionStoreConformanceError,
  sessionStoreChecks,
  sessionStoreConformance,
} from './session-store-conformance.js'

let work: Awaited<ReturnType<typeof tempDir>>
let n = 0
beforeAll(async () => {
  work = await tempDir('conformance')
})
afterAll(() => work.cleanup())

const jsonl = () => jsonlSessionStore(join(work.dir, `s${n++}`), { fsync: false })

/** A small in-memory store written from the contract alone: the suite is not file-specific. */
function memoryStore(): SessionStore {
  const sessions = new Map<string, SessionEntry[]>()
  return {
    async load(id) {
      assertSessionId(id, 'memory.load')
      return { entries: structuredClone(sessions.get(id) ?? []), warnings: [] }
    },
    async append(id, entries) {
      assertSessionId(id, 'memory.append')
      const parsed = parseWith(z.array(SessionEntrySchema), entries, 'entries')
      if (parsed.some((e) => e.type === 'session' && e.id !== id)) {
        throw new ValidationError('header of another session', [{ path: 'id', message: id }])
      }
      if (parsed.length === 0) return
      sessions.set(id, [...(sessions.get(id) ?? []), ...structuredClone(parsed)])
    },
    async list() {
      return [...sessions.keys()].sort()
    },
    async delete(id) {
      assertSessionId(id, 'memory.delete')
      return sessions.delete(id)
    },
  }
}

async function failedChecks(make: () => SessionStore): Promise<string[]> {
  try {
    await sessionStoreConformance(make)
  } catch (error) {
    if (error instanceof SessionStoreConformanceError) return error.failures.map((f) => f.check)
    throw error
  }
  return []
}

const name = (prefix: string) => {
  const found = sessionStoreChecks(jsonl).find((c) => c.name.startsWith(prefix))
  if (!found) throw new Error(`no check named ${prefix}`)
  return found.name
}

describe('sessionStoreConformance', () => {
  test('passes a correct store that is not file based', async () => {
    const report = await sessionStoreConformance(memoryStore)
    expect(report.passed).toEqual(sessionStoreChecks(memoryStore).map((c) => c.name))
  })

  test('catches a store that lets unsafe ids through', async () => {
    const make = () => {
      const inner = memoryStore()
      return {
        ...inner,
        delete: async (id) => (typeof id === 'string' && id.length > 0 ? inner.delete(id) : false),
      } as SessionStore
    }
    expect(await failedChecks(make)).toEqual([name('unsafe ids')])
  })

  test('catches a store whose list is not sorted', async () => {
    const make = (): SessionStore => {
      const inner = jsonl()
      return { ...inner, list: async () => (await inner.list()).reverse() }
    }
    expect(await failedChecks(make)).toContain(name('list names'))
  })

  test('catches a store that writes part of a bad batch', async () => {
    const make = (): SessionStore => {
      const inner = jsonl()
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

  test('catches a store that interleaves concurrent batches', async () => {
    const make = (): SessionStore => {
      const inner = memoryStore()
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
      const inner = memoryStore()
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
      const inner = memoryStore()
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
