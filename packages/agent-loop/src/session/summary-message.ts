import { assertString, type Message } from '@contextkit/core'

// The user message that stands in for compacted history: written by a compaction, read back
// when a session with a compaction entry loads.

/** The text that opens the summary message sent in place of the compacted history. */
export const COMPACTION_SUMMARY_PREFIX =
  'The conversation before this point was compacted into the following summary:'

/** The user message that stands in for the compacted history. */
export function summaryMessage(summary: string): Message {
  assertString(summary, 'summaryMessage', 'summary')
  return {
    role: 'user',
    content: [
      { type: 'text', text: `${COMPACTION_SUMMARY_PREFIX}\n<summary>\n${summary}\n</summary>` },
    ],
  }
}

/** The summary in a message made by {@link summaryMessage}; `undefined` for any other message. */
export function summaryOf(message: Message | undefined): string | undefined {
  if (message?.role !== 'user' || message.content.length !== 1) return undefined
  const block = message.content[0]
  if (block?.type !== 'text' || !block.text.startsWith(COMPACTION_SUMMARY_PREFIX)) return undefined
  const text = block.text.slice(COMPACTION_SUMMARY_PREFIX.length)
  return text.replace(/^\s*<summary>\n?/, '').replace(/\n?<\/summary>\s*$/, '')
}
