import type {
  ContentBlock,
  Message,
  SessionCompactionEntry,
  SessionEntry,
  Usage,
} from '@contextkit/core'
import type { ToolCallView } from './model.js'
import { inputText } from './session-summary.js'

/** One assistant reply of a session with what followed it up to the next reply. */
export interface SessionReply {
  /** Position from the session's last reply (0: the last). */
  fromEnd: number
  ts: string
  text: string
  thinking: string
  stopReason: string | null
  usage: Usage | null
  calls: ToolCallView[]
  compaction: SessionCompactionEntry | null
}

function resultText(block: Extract<ContentBlock, { type: 'tool_result' }>): string {
  return block.content
    .map((c) => (c.type === 'text' ? c.text : `[image ${c.mediaType}]`))
    .join('\n')
}

function replyOf(message: Message, ts: string): SessionReply {
  const text: string[] = []
  const thinking: string[] = []
  const calls: ToolCallView[] = []
  for (const b of message.content) {
    if (b.type === 'text') text.push(b.text)
    else if (b.type === 'thinking') thinking.push(b.thinking)
    else if (b.type === 'tool_call') {
      calls.push({
        id: b.id,
        name: b.name,
        input: inputText(b.input),
        result: null,
        isError: false,
        durationMs: null,
        approval: null,
        reason: null,
      })
    }
  }
  const m = message as Message & { stopReason?: unknown; usage?: Usage }
  return {
    fromEnd: -1,
    ts,
    text: text.join(''),
    thinking: thinking.join('\n'),
    stopReason: typeof m.stopReason === 'string' ? m.stopReason : null,
    usage: m.usage ?? null,
    calls,
    compaction: null,
  }
}

function follow(reply: SessionReply, entry: SessionEntry): void {
  if (entry.type === 'compaction') {
    reply.compaction = entry
    return
  }
  if (entry.type === 'approval') {
    const call = reply.calls.find((c) => c.id === entry.toolCallId)
    if (!call) return
    call.approval = entry.status
    if (entry.reason !== undefined) call.reason = entry.reason
    return
  }
  if (entry.type !== 'message') return
  for (const b of entry.message.content) {
    if (b.type !== 'tool_result') continue
    const call = reply.calls.find((c) => c.id === b.toolCallId)
    if (!call) continue
    call.result = resultText(b)
    call.isError = b.isError
  }
}

/**
 * The replies among `entries` (in append order), each with the tool results, approval entries
 * and compaction entry that follow it; `newest` is the position from the end of the last reply
 * given (0 when the entries reach the session's end).
 */
export function sessionReplies(entries: readonly SessionEntry[], newest: number): SessionReply[] {
  const replies: SessionReply[] = []
  let current: SessionReply | undefined
  for (const entry of entries) {
    if (entry.type === 'message' && entry.message.role === 'assistant') {
      current = replyOf(entry.message, entry.ts)
      replies.push(current)
    } else if (current) follow(current, entry)
  }
  replies.forEach((r, i) => {
    r.fromEnd = newest + (replies.length - 1 - i)
  })
  return replies
}
