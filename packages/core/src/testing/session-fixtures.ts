import { assertArray, assertFiniteNumber, assertString, invalidArgument } from '../errors.js'
import { randomId } from '../random-id.js'
import { SessionEntrySchema } from '../session-entry-schemas.js'
import { type SessionEntry, type SessionMessageEntry, sessionHeader } from '../session-store.js'

/** A fresh id no other check (or earlier run) uses: `<label>-<random>`. */
export function freshId(label: string): string {
  assertString(label, 'freshId', 'label')
  return `${label}-${randomId().slice(0, 13)}`
}

/**
 * `count` chained message entries (`<prefix>-0`, `<prefix>-1`, …), user and assistant in turn,
 * holding `text(n)` (default `<prefix> text <n>`), the first one's parent `parentId`.
 */
export function messageEntries(
  prefix: string,
  count: number,
  parentId: string | null = null,
  text: (n: number) => string = (n) => `${prefix} text ${n}`,
): SessionMessageEntry[] {
  assertString(prefix, 'messageEntries', 'prefix')
  assertFiniteNumber(count, 'messageEntries', 'count')
  if (parentId !== null) assertString(parentId, 'messageEntries', 'parentId', true)
  if (typeof text !== 'function') invalidArgument('messageEntries', 'text', 'a function', text)
  const out: SessionMessageEntry[] = []
  let parent = parentId
  for (let n = 0; n < count; n++) {
    const id = `${prefix}-${n}`
    const ts = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()
    const content = [{ type: 'text' as const, text: text(n) }]
    const message: SessionMessageEntry['message'] =
      n % 2 === 0
        ? { role: 'user', content }
        : {
            role: 'assistant',
            content,
            stopReason: 'end_turn',
            usage: { input: 10 + n, output: n, cacheRead: 0, cacheWrite: 0 },
          }
    out.push({ type: 'message', id, parentId: parent, ts, message })
    parent = id
  }
  return out
}

/** A new session's first batch: its header, then `count` messages (`<id>-m-<n>`). */
export function newSession(id: string, count: number): SessionEntry[] {
  return [sessionHeader(id, new Date('2026-01-01T00:00:00Z')), ...messageEntries(`${id}-m`, count)]
}

/** What a store must give back for `entries`: the schema's normal form (defaults filled in). */
export function normalized(entries: readonly SessionEntry[]): SessionEntry[] {
  assertArray(entries, 'normalized', 'entries')
  return entries.map((entry) => SessionEntrySchema.parse(entry))
}
