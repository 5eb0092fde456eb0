import { assertObject, assertString, invalidArgument } from './errors.js'
import type {
  SessionEntry,
  SessionLoadResult,
  SessionStore,
  SessionWarning,
} from './session-store.js'

/**
 * What {@link SessionStore.stream} returns: a session's entries one at a time, in append order
 * (header first), and what was skipped or repaired on the way.
 *
 * ```ts
 * const stream = store.stream(id)
 * for await (const entry of stream) index(entry)
 * console.log(stream.warnings) // complete once the loop ended
 * ```
 */
export interface SessionEntryStream extends AsyncIterable<SessionEntry> {
  /**
   * The warnings of the entries read so far (what `load` reports, in the same order); complete
   * once the iteration has ended. Leaving the loop early (`break`) releases what the stream
   * held (a file, a cursor).
   */
  readonly warnings: readonly SessionWarning[]
}

/**
 * A session's entries one at a time: the store's `stream` when it has one (memory bounded by
 * the largest entry, whatever the session's length), else its `load`, given out entry by entry.
 */
export function streamSession(store: SessionStore, id: string): SessionEntryStream {
  assertObject(store, 'streamSession', 'store')
  assertString(id, 'streamSession', 'id')
  if (typeof store.stream === 'function') return store.stream(id)
  const warnings: SessionWarning[] = []
  return {
    warnings,
    async *[Symbol.asyncIterator]() {
      const loaded = await store.load(id)
      warnings.push(...loaded.warnings)
      yield* loaded.entries
    },
  }
}

/**
 * Every entry of a stream and its warnings, as `load` returns them (a store's `load` can be
 * this over its `stream`).
 */
export async function collectSession(stream: SessionEntryStream): Promise<SessionLoadResult> {
  assertObject(stream, 'collectSession', 'stream')
  if (
    typeof (stream as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] !== 'function' ||
    !Array.isArray((stream as { warnings?: unknown }).warnings)
  ) {
    invalidArgument(
      'collectSession',
      'stream',
      'an async iterable of entries with warnings',
      stream,
    )
  }
  const entries: SessionEntry[] = []
  for await (const entry of stream) entries.push(entry)
  return { entries, warnings: [...stream.warnings] }
}
