import { assertArray, type Message, type SessionEntry, type SessionWarning } from '@contextkit/core'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { summaryMessage } from './summary-message.js'

/** What {@link applyCompaction} returns. */
export interface AppliedCompaction {
  /** The summary message standing in for the compacted entries (none: not compacted). */
  summary?: Message
  /** The messages sent after the summary: every message from the first kept one on. */
  messages: Message[]
  /** Compaction entries ignored (they name an id the session does not hold before them). */
  warnings: SessionWarning[]
}

/**
 * The history a loaded session stands for: with no `compaction` entry, all of its messages; with
 * one, the newest valid one's summary and the messages from its `firstKeptId` on (every message
 * entry after it in the session, those written after the compaction included). The full history
 * stays in `entries`; header, `custom` and `approval` entries are skipped. A compaction entry
 * whose `firstKeptId` names no message entry before it is ignored with a warning (code
 * `AGENT_LOOP_WARNINGS.compactionUnknownId`) and the one before it is used. Pure.
 */
export function applyCompaction(entries: readonly SessionEntry[]): AppliedCompaction {
  assertArray(entries, 'applyCompaction', 'entries')
  const warnings: SessionWarning[] = []
  const positions = new Map<string, number>()
  entries.forEach((e, i) => {
    if (e.type === 'message') positions.set(e.id, i)
  })
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as SessionEntry
    if (entry.type !== 'compaction') continue
    const from = positions.get(entry.firstKeptId)
    if (from === undefined || from > i) {
      warnings.push({
        code: AGENT_LOOP_WARNINGS.compactionUnknownId,
        message: `Compaction entry ${entry.id} names ${JSON.stringify(entry.firstKeptId)}, which is not a message entry before it; it was ignored`,
      })
      continue
    }
    return {
      summary: summaryMessage(entry.summary),
      messages: messagesFrom(entries, from),
      warnings: warnings.reverse(),
    }
  }
  return { messages: messagesFrom(entries, 0), warnings: warnings.reverse() }
}

function messagesFrom(entries: readonly SessionEntry[], from: number): Message[] {
  const out: Message[] = []
  for (let i = from; i < entries.length; i++) {
    const e = entries[i] as SessionEntry
    if (e.type === 'message') out.push(e.message)
  }
  return out
}
