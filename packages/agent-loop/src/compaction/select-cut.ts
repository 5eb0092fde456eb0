import type { Message, Section, TurnContext } from '@contextkit/core'
import type { RunTokenCounter } from '../budget/budget.js'
import { summaryOf } from '../session/summary-message.js'

/** A message holding tool results: it continues the step of the call it answers. */
function isToolResults(message: Message): boolean {
  return message.role === 'user' && message.content.some((b) => b.type === 'tool_result')
}

/**
 * Whether the kept tail may start at `messages[i]`: never on tool results (they stay with their
 * call), never on an earlier summary, never at 0 (something must be summarized).
 */
export function isCutPoint(messages: readonly Message[], i: number): boolean {
  const m = messages[i]
  return i > 0 && m !== undefined && !isToolResults(m) && summaryOf(m) === undefined
}

/** The last index the kept tail may start at (`undefined`: none). */
export function lastCutPoint(messages: readonly Message[]): number | undefined {
  for (let i = messages.length - 1; i > 0; i--) if (isCutPoint(messages, i)) return i
  return undefined
}

/**
 * Where to cut a history for compaction: the index of the first kept message. Walks back from
 * the newest message adding up tokens until `keepTokens` is reached, then takes the nearest cut
 * point at or after that message (else the last one before it). A tool call and its results are
 * never separated: tool results are never a cut point, so they stay after their call. When the
 * whole history is within `keepTokens`, the newest cut point is taken (the smallest tail).
 * `undefined` when nothing new would be summarized.
 */
export function selectCut(
  messages: readonly Message[],
  keepTokens: number,
  tokensOf: (message: Message) => number,
): number | undefined {
  let start: number | undefined
  let total = 0
  for (let i = messages.length - 1; i >= 0; i--) {
    total += tokensOf(messages[i] as Message)
    if (total >= keepTokens) {
      start = i
      break
    }
  }
  let cut: number | undefined
  if (start !== undefined) {
    for (let i = Math.max(start, 1); i < messages.length && cut === undefined; i++) {
      if (isCutPoint(messages, i)) cut = i
    }
  }
  cut ??= lastCutPoint(messages)
  if (cut === undefined) return undefined
  // an earlier summary alone before the cut: nothing new to summarize
  if (cut === 1 && summaryOf(messages[0]) !== undefined) return undefined
  return cut
}

/** Token figures of one request, from the run's counter (memoized: cheap on every call). */
export interface RequestEstimate {
  /** Everything: sections, tool definitions, messages. */
  total: number
  /**
   * What no compaction can remove: required sections, tool definitions, and the messages from
   * the last cut point on (the user message opening the newest turn, or the newest step).
   */
  floor: number
}

function sectionTokens(sections: readonly Section[], counter: RunTokenCounter, required: boolean) {
  let n = 0
  for (const s of sections) if (!required || s.required) n += counter.text(s.text)
  return n
}

/** The estimate of a request with `messages` in place of the turn's own. */
export function estimateRequest(
  turn: TurnContext,
  messages: readonly Message[],
  counter: RunTokenCounter,
): RequestEstimate {
  const tools = counter.tools(turn.tools)
  let all = 0
  for (const m of messages) all += counter.message(m)
  const last = lastCutPoint(messages) ?? 0
  let tail = 0
  for (let i = last; i < messages.length; i++) tail += counter.message(messages[i] as Message)
  const sections = [turn.system, turn.userSections]
  let total = tools + all
  let floor = tools + tail
  for (const list of sections) {
    total += sectionTokens(list, counter, false)
    floor += sectionTokens(list, counter, true)
  }
  return { total, floor }
}

/** Whether a request of `estimate` tokens passes the threshold `at` × `contextWindow`. */
export function compactionDue(estimate: number, at: number, contextWindow: number): boolean {
  return estimate > at * contextWindow
}
