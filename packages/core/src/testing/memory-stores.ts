// Test support: stores written from the contracts alone, so the kits are seen to be about the
// contracts, not about files or tables. Not exported.
import * as z from 'zod'
import { parseWith, ValidationError } from '../errors.js'
import { SessionEntrySchema } from '../session-entry-schemas.js'
import { assertSessionId } from '../session-id.js'
import type { SessionEntry, SessionStore } from '../session-store.js'
import { RevisionConflictError, type StateStore } from '../state-store.js'
import { memoryLeases } from './memory-lease.js'

/** A `SessionStore` in a `Map`. */
export function memorySessionStore(): SessionStore {
  const sessions = new Map<string, SessionEntry[]>()
  return {
    acquireLease: memoryLeases(),
    async load(id) {
      assertSessionId(id, 'memory.load')
      return { entries: structuredClone(sessions.get(id) ?? []), warnings: [] }
    },
    stream(id) {
      assertSessionId(id, 'memory.stream')
      const entries = structuredClone(sessions.get(id) ?? [])
      return {
        warnings: [],
        [Symbol.asyncIterator]: async function* () {
          yield* entries
        },
      }
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

/** A `StateStore` in a `Map`, compare-and-set included. */
export function memoryStateStore<T>(): StateStore<T> {
  const values = new Map<string, { state: T; revision: number }>()
  return {
    async load(id) {
      const found = values.get(id)
      return found ? structuredClone(found) : null
    },
    async save(id, state, options = {}) {
      const revision = values.get(id)?.revision ?? 0
      const expected = options.expectedRevision
      if (expected !== undefined && expected !== revision) {
        throw new RevisionConflictError(`revision ${revision}, not ${expected}`, expected, revision)
      }
      values.set(id, { state: structuredClone(state), revision: revision + 1 })
      return { revision: revision + 1 }
    },
  }
}
