import { randomUUID } from 'node:crypto'
import {
  type Message,
  type SessionEntry,
  SessionEntrySchema,
  type SessionMessageEntry,
  sessionHeader,
} from '@contextkit/core'

/** A fresh session id no other check (or earlier run) uses: `<label>-<random>`. */
export function freshId(label: string): string {
  return `${label}-${randomUUID().slice(0, 13)}`
}

/** `count` chained message entries (`<prefix>-0`, `<prefix>-1`, …) holding `text-<n>`. */
export function messageEntries(
  prefix: string,
  count: number,
  parentId: string | null = null,
  text: (n: number) => string = (n) => `${prefix} text ${n}`,
): SessionMessageEntry[] {
  const out: SessionMessageEntry[] = []
  let parent = parentId
  for (let n = 0; n < count; n++) {
    const id = `${prefix}-${n}`
    const message: Message = {
      role: n % 2 === 0 ? 'user' : 'assistant',
      content: [{ type: 'text', text: text(n) }],
    }
    const entry: SessionMessageEntry =
      message.role === 'assistant'
        ? {
            type: 'message',
            id,
            parentId: parent,
            ts: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
            message: {
              ...message,
              role: 'assistant',
              stopReason: 'end_turn',
              usage: { input: 10 + n, output: n, cacheRead: 0, cacheWrite: 0 },
            },
          }
        : {
            type: 'message',
            id,
            parentId: parent,
            ts: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
            message,
          }
    out.push(entry)
    parent = id
  }
  return out
}

/** A new session's first batch: its header, then `count` messages. */
export function newSession(id: string, count: number): SessionEntry[] {
  return [sessionHeader(id, new Date('2026-01-01T00:00:00Z')), ...messageEntries(`${id}-m`, count)]
}

/** What a store must give back for `entries`: the schema's normal form (defaults filled in). */
export function normalized(entries: readonly SessionEntry[]): SessionEntry[] {
  return entries.map((entry) => SessionEntrySchema.parse(entry))
}
