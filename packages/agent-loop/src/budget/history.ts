import {
  type ContentBlock,
  defaultTokenCounter,
  estimateRequestTokens,
  invalidArgument,
  type Message,
  parseWith,
  type TokenCounter,
  type ToolCallBlock,
  type ToolResultBlock,
} from '@contextkit/core'
import * as c from '@contextkit/core/check'

/**
 * The text of the error result {@link repairOrphans} gives a tool call that has none (the run
 * stopped between the call and its result: a crash, an abort, a cut history).
 */
export const MISSING_TOOL_RESULT_TEXT =
  'No result was recorded for this tool call: the run stopped before it finished, so it may or may not have run.'

/** Options of {@link limitHistory}. Without `turns` and `tokens` it only repairs orphans. */
export interface LimitHistoryOptions {
  /**
   * Keep the last `turns` user turns. A turn starts at a user message holding no tool result
   * (tool results continue the turn of the call they answer). Default: no turn limit.
   */
  turns?: number
  /**
   * Keep as many of the newest turns as fit in this many tokens (as core's
   * `estimateRequestTokens` counts the messages with `counter`). The newest turn is
   * always kept whole, even when it alone is over: fitting inside it is budget fitting's job.
   * Default: no token limit.
   */
  tokens?: number
  /** Counts the tokens of text for `tokens`. Default: core's `defaultTokenCounter`. */
  counter?: TokenCounter
}

// core's zod-free checks, not zod: a bundle of limitHistory alone stays small (README), and
// importing the loop never loads zod; history.test.ts holds it to the zod schema it replaced with
// a fast-check property.
/** The check of {@link LimitHistoryOptions}: unknown keys refused. */
export const LimitOptionsCheck = /* @__PURE__ */ c.lazy(() =>
  c.strictObject({
    turns: c.optional(c.number({ int: true, min: 1 })),
    tokens: c.optional(c.number({ min: 0 })),
    counter: c.optional(
      c.custom<TokenCounter>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as { count?: unknown }).count === 'function',
        'a TokenCounter (an object with count(text))',
        ['object'],
      ),
    ),
  }),
)

/**
 * Cut a history down to its newest turns: the last `turns` user turns and/or as many newest
 * turns as fit in `tokens`. Orphans are repaired first ({@link repairOrphans}), and the cut only
 * ever lands on the start of a user turn, so a tool call is never separated from its result and
 * the history never starts on a tool result. The result is a suffix of the repaired history;
 * when the whole history fits, messages before the first user turn are kept as they are.
 * Pure: the input is not changed, and unchanged messages are returned as the same objects.
 */
export function limitHistory(
  messages: readonly Message[],
  options: LimitHistoryOptions = {},
): Message[] {
  checkMessages(messages, 'limitHistory')
  const opts = parseWith(LimitOptionsCheck, options ?? {}, 'limitHistory options')
  const repaired = repairOrphans(messages)
  const starts: number[] = []
  for (let i = 0; i < repaired.length; i++) {
    if (isTurnStart(repaired[i] as Message)) starts.push(i)
  }
  if (starts.length === 0) return repaired
  // Where the kept part may start, newest first: each turn start, and the very beginning
  // (messages before the first turn) when the turn limit keeps every turn.
  const fromTurn =
    opts.turns !== undefined && starts.length > opts.turns ? starts.length - opts.turns : 0
  const cuts = starts.slice(fromTurn).reverse()
  if (fromTurn === 0 && starts[0] !== 0) cuts.push(0)
  let cut = cuts[cuts.length - 1] as number
  if (opts.tokens !== undefined) {
    const counter = opts.counter ?? defaultTokenCounter
    let end = repaired.length
    let total = 0
    for (const [n, at] of cuts.entries()) {
      let part = 0
      part += estimateRequestTokens({ messages: repaired.slice(at, end) }, counter)
      // The newest turn is kept whatever it costs; older ones only while they fit.
      if (n > 0 && total + part > opts.tokens) break
      total += part
      end = at
    }
    cut = end
  }
  return cut === 0 ? repaired : repaired.slice(cut)
}

/** A user message with no tool result: where a turn (and a cut history) may start. */
function isTurnStart(message: Message): boolean {
  return message.role === 'user' && !message.content.some((b) => b.type === 'tool_result')
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return String(value)
  }
}

/**
 * Make a history API-valid around tool calls, losing nothing:
 *
 * - A tool call with no result in the user message right after its assistant message gets an
 *   error result (`MISSING_TOOL_RESULT_TEXT`, `isError: true`); when no user message
 *   follows, one is inserted holding those results.
 * - The results of an assistant message's calls are put first in the next user message, in
 *   call order (the API wants them there), gathered from the run of user messages after it.
 * - A tool result with no matching call right before it (or a second result for one call, or a
 *   result in an assistant message) is kept as a text block saying which call it answered,
 *   followed by its images. A tool call inside a user message is kept as text the same way.
 *
 * Consecutive user messages are left as they are (formatters merge them). Idempotent; pure;
 * messages that need no repair are returned as the same objects.
 */
export function repairOrphans(messages: readonly Message[]): Message[] {
  checkMessages(messages, 'repairOrphans')
  const out: Message[] = []
  let i = 0
  while (i < messages.length) {
    const message = messages[i] as Message
    i++
    if (message.role !== 'assistant') {
      out.push(demoteAll(message))
      continue
    }
    const reply = demoteAll(message)
    out.push(reply)
    const calls = uniqueCalls(reply.content)
    if (calls.length === 0) continue
    let end = i
    while (end < messages.length && (messages[end] as Message).role === 'user') end++
    out.push(...attachResults(calls, messages.slice(i, end)))
    i = end
  }
  return out
}

function uniqueCalls(content: readonly ContentBlock[]): ToolCallBlock[] {
  const seen = new Set<string>()
  const calls: ToolCallBlock[] = []
  for (const block of content) {
    if (block.type === 'tool_call' && !seen.has(block.id)) {
      seen.add(block.id)
      calls.push(block)
    }
  }
  return calls
}

/**
 * The user messages after an assistant message with `calls`: the first one starts with one
 * result per call, in call order; every other tool result becomes text.
 */
function attachResults(calls: readonly ToolCallBlock[], group: readonly Message[]): Message[] {
  const wanted = new Set(calls.map((c) => c.id))
  const found = new Map<string, ToolResultBlock>()
  const rest: ContentBlock[][] = group.map((message) => {
    const kept: ContentBlock[] = []
    for (const block of message.content) {
      if (
        block.type === 'tool_result' &&
        wanted.has(block.toolCallId) &&
        !found.has(block.toolCallId)
      ) {
        found.set(block.toolCallId, block)
      } else {
        kept.push(...demoteBlock(block, message.role))
      }
    }
    return kept
  })
  const results: ContentBlock[] = calls.map((call) => found.get(call.id) ?? missingResult(call))
  const head = group[0]
  if (head === undefined) return [{ role: 'user', content: results }]
  const out: Message[] = [withContent(head, [...results, ...(rest[0] ?? [])])]
  for (let g = 1; g < group.length; g++) {
    const message = group[g] as Message
    const content = rest[g] ?? []
    // A message emptied because its results moved up is dropped; nothing in it is lost.
    if (content.length === 0 && message.content.length > 0) continue
    out.push(withContent(message, content))
  }
  return out
}

function missingResult(call: ToolCallBlock): ToolResultBlock {
  return {
    type: 'tool_result',
    toolCallId: call.id,
    content: [{ type: 'text', text: MISSING_TOOL_RESULT_TEXT }],
    isError: true,
  }
}

/** The message with every misplaced tool result / tool call turned into text. */
function demoteAll(message: Message): Message {
  const content: ContentBlock[] = []
  for (const block of message.content) content.push(...demoteBlock(block, message.role))
  return withContent(message, content)
}

/** A block kept as it is, or (a tool result/call that cannot stand here) as text and images. */
function demoteBlock(block: ContentBlock, role: Message['role']): ContentBlock[] {
  if (block.type === 'tool_result') {
    const error = block.isError ? ', an error' : ''
    let text = `[Result of tool call ${block.toolCallId}${error}; the call is not in this history]`
    const images: ContentBlock[] = []
    for (const part of block.content) {
      if (part.type === 'text') text += `\n${part.text}`
      else images.push(part)
    }
    return [{ type: 'text', text }, ...images]
  }
  if (block.type === 'tool_call' && role === 'user') {
    const body = block.raw ?? safeJson(block.input)
    return [{ type: 'text', text: `[Tool call ${block.name} (${block.id}): ${body}]` }]
  }
  return [block]
}

/** `message` with `content`, or `message` itself when the blocks are the same ones. */
function withContent(message: Message, content: ContentBlock[]): Message {
  const same =
    content.length === message.content.length &&
    content.every((block, n) => block === message.content[n])
  return same ? message : { ...message, content }
}

function checkMessages(messages: unknown, fn: string): asserts messages is readonly Message[] {
  if (!Array.isArray(messages)) invalidArgument(fn, 'messages', 'an array of messages', messages)
  for (const [n, message] of messages.entries()) {
    const m = message as Partial<Message> | null
    if (
      typeof m !== 'object' ||
      m === null ||
      (m.role !== 'user' && m.role !== 'assistant') ||
      !Array.isArray(m.content)
    ) {
      invalidArgument(fn, `messages[${n}]`, 'a message ({ role, content: [] })', message)
    }
  }
}
