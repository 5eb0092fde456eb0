import {
  type ApprovalStatus,
  assertArray,
  type Message,
  type SessionEntry,
  type ToolCallBlock,
} from '@contextkit/core'

/** The approval entries of one call, folded: where it stands, and what was asked. */
export interface CallApproval {
  status: ApprovalStatus
  /** The reason of a denial. */
  reason?: string
}

/** A tool call of the session's last reply that has no saved result. */
export interface UnansweredCall {
  call: ToolCallBlock
  /** Its approval state, when the log has one. */
  approval?: CallApproval
}

/**
 * Where the last run of a session stands, read from its log alone (the log is the run state):
 * - `idle`: nothing is unfinished (no message yet, or the last reply answered without tools).
 * - `reply`: the log ends with input the model has not answered (the user's message, or every
 *   tool result of the last reply): the next model call is due.
 * - `tools`: the last reply called tools and some have no result: they were interrupted, or
 *   wait for a person's approval.
 */
export type RunState =
  | { kind: 'idle' }
  | { kind: 'reply' }
  | { kind: 'tools'; unanswered: UnansweredCall[] }

/**
 * Read a session's entries (in append order) and say whether its last run is unfinished and
 * how. The approval entries after the last reply are folded per call (the latest status wins,
 * a denial keeps its reason); older ones belong to earlier replies, even when a provider reused
 * a call id. Reads nothing before the last reply but its messages, so a store's `loadTail` gives
 * the same state as its full `load`. Pure.
 */
export function runStateOf(entries: readonly SessionEntry[]): RunState {
  assertArray(entries, 'runStateOf', 'entries')
  const messages: Message[] = []
  const approvals = new Map<string, CallApproval>()
  for (const entry of entries) {
    if (entry.type === 'message') {
      messages.push(entry.message)
      // approvals are written after the reply whose calls they decide: older ones are not its
      if (entry.message.role === 'assistant') approvals.clear()
    } else if (entry.type === 'approval') {
      approvals.set(entry.toolCallId, {
        status: entry.status,
        ...(entry.reason === undefined ? {} : { reason: entry.reason }),
      })
    }
  }
  if (messages.length === 0) return { kind: 'idle' }
  const lastReply = messages.findLastIndex((m) => m.role === 'assistant')
  if (lastReply === -1) return { kind: 'reply' }
  const reply = messages[lastReply] as Message
  const calls = reply.content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
  const after = messages.slice(lastReply + 1)
  if (calls.length === 0) return after.length > 0 ? { kind: 'reply' } : { kind: 'idle' }
  const answered = new Set<string>()
  for (const message of after) {
    for (const block of message.content) {
      if (block.type === 'tool_result') answered.add(block.toolCallId)
    }
  }
  const seen = new Set<string>()
  const unanswered: UnansweredCall[] = []
  for (const call of calls) {
    if (answered.has(call.id) || seen.has(call.id)) continue
    seen.add(call.id)
    const approval = approvals.get(call.id)
    unanswered.push(approval ? { call, approval } : { call })
  }
  return unanswered.length > 0 ? { kind: 'tools', unanswered } : { kind: 'reply' }
}
