import {
  assertArray,
  invalidArgument,
  type Message,
  randomId,
  type SessionEntry,
  type SessionMessageEntry,
} from '@contextkit/core'

/** Options of {@link sessionMessageEntries}. */
export interface SessionMessageEntriesOptions {
  /** The entry the first new one follows: the last entry of the loaded session. Default `null`. */
  parentId?: string | null
  /** Clock for `ts`. Default `() => new Date()`. */
  now?: () => Date
  /** Makes entry ids. Default core's `randomId` (a v4 UUID from Web Crypto). */
  newId?: () => string
}

/**
 * Wrap messages as session entries ready for `append`: one `message` entry each, with a fresh
 * id, chained by `parentId` starting after `options.parentId`, stamped with the time.
 */
export function sessionMessageEntries(
  messages: readonly Message[],
  options: SessionMessageEntriesOptions = {},
): SessionMessageEntry[] {
  if (!Array.isArray(messages)) {
    invalidArgument('sessionMessageEntries', 'messages', 'an array of messages', messages)
  }
  const now = options.now ?? (() => new Date())
  const newId = options.newId ?? randomId
  let parentId = options.parentId ?? null
  return messages.map((message) => {
    const id = newId()
    const entry: SessionMessageEntry = {
      type: 'message',
      id,
      parentId,
      ts: now().toISOString(),
      message,
    }
    parentId = id
    return entry
  })
}

/** The id of the last entry that can be a parent (not the header), or `null` for none. */
export function lastEntryId(entries: readonly SessionEntry[]): string | null {
  assertArray(entries, 'lastEntryId', 'entries')
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as SessionEntry
    if (entry.type !== 'session') return entry.id
  }
  return null
}
