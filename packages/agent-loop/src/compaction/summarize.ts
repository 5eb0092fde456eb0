import {
  type ContentBlock,
  invalidArgument,
  isMessageArray,
  type Message,
  type ModelInfo,
  type TokenCounter,
} from '@contextkit/core'
import type { CallResult, CallSpec } from '../call/call-types.js'
import { abortedProviderError } from '../provider/retry.js'
import { summaryOf } from '../session/summary-message.js'
import type { SummarizeInput } from './compaction-options.js'

/**
 * The system prompt of the default summarizer. The conversation is sent as plain text inside
 * `<conversation>` tags (see {@link serializeConversation}), so the model reads it as a document
 * rather than a dialogue to continue.
 */
export const SUMMARY_SYSTEM_PROMPT = `You write the working memory of an AI agent whose conversation no longer fits its context window. You are given the older part of the conversation inside <conversation> tags (and, when there is one, the summary written at the previous compaction inside <previous-summary> tags). Do not continue the conversation and do not answer any question in it: output only the summary.

Write it under these headings, keeping every item short and concrete:
## Task
What the user asked for, in their words where it matters, with any constraints or preferences they gave.
## Progress
What is done, what is in progress, what is blocked.
## Decisions
Choices made and why.
## Open questions
What is still unknown or waiting for the user.
## Files and tools
Exact file paths, function names, commands and identifiers touched, and the outcome of each tool call that still matters (results, errors with their exact message).
## Next steps
What the agent was about to do.

Keep everything from the previous summary that is still true. Never invent facts.`

/** Id of the system section of the default summarizer's call. */
const SUMMARY_SECTION_ID = 'compaction-summary'

/** Characters of one tool result kept when a conversation is serialized for the summarizer. */
const SERIALIZED_TOOL_RESULT_CHARS = 2_000

function clipChars(text: string, max: number): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)} [… ${text.length - max} more characters]`
}

function blockLine(role: Message['role'], block: ContentBlock): string | undefined {
  switch (block.type) {
    case 'text':
      return `[${role === 'user' ? 'User' : 'Assistant'}]: ${block.text}`
    case 'thinking':
      return `[Assistant thinking]: ${block.thinking}`
    case 'tool_call':
      return `[Assistant tool call]: ${block.name}(${JSON.stringify(block.input)})`
    case 'tool_result': {
      const text = block.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n')
      const tag = block.isError ? 'Tool error' : 'Tool result'
      return `[${tag}]: ${clipChars(text, SERIALIZED_TOOL_RESULT_CHARS)}`
    }
    case 'image':
      return `[${role === 'user' ? 'User' : 'Assistant'} image]`
    default:
      return undefined
  }
}

/**
 * A conversation as plain text for a summarizer: one line per block, tagged `[User]:`,
 * `[Assistant]:`, `[Assistant thinking]:`, `[Assistant tool call]:`, `[Tool result]:` (cut to
 * 2,000 characters each); an earlier summary message is left out (it goes in
 * `<previous-summary>`).
 */
export function serializeConversation(messages: readonly Message[]): string {
  if (!isMessageArray(messages))
    invalidArgument('serializeConversation', 'messages', 'an array of messages', messages)
  const lines: string[] = []
  for (const message of messages) {
    if (summaryOf(message) !== undefined) continue
    for (const block of message.content) {
      const line = blockLine(message.role, block)
      if (line !== undefined) lines.push(line)
    }
  }
  return lines.join('\n\n')
}

/**
 * Cut `text` to about `maxTokens` (head and tail kept, a marker between saying how much was left
 * out), so the summary call itself always fits the window.
 */
export function clipToTokens(text: string, maxTokens: number, counter: TokenCounter): string {
  const tokens = counter.count(text)
  if (tokens <= maxTokens) return text
  const keep = Math.max(0, Math.floor((text.length * maxTokens) / tokens) - 80)
  const head = Math.ceil(keep / 2)
  const tail = keep - head
  const left = text.length - head - tail
  return `${text.slice(0, head)}\n[… ${left} characters (~${tokens - maxTokens} tokens) left out …]\n${tail > 0 ? text.slice(-tail) : ''}`
}

/** The least `max_tokens` a summary call asks for while the window leaves that much. */
const MIN_SUMMARY_TOKENS = 256

/**
 * The `max_tokens` of a summary call: a tenth of `model`'s window (at least 256), bounded by the
 * model's output limit and by what the window leaves after the summary request itself (its
 * system prompt and `input`'s text, counted by `counter`). `model` carries the window in force.
 */
export function summaryMaxTokens(
  model: ModelInfo,
  input: SummarizeInput,
  counter: TokenCounter,
): number {
  const window = model.contextWindow
  const prompt = counter.count(SUMMARY_SYSTEM_PROMPT) + counter.count(summaryRequestText(input))
  const share = Math.max(MIN_SUMMARY_TOKENS, Math.floor(window / 10))
  return Math.max(1, Math.min(model.maxOutput, share, window - prompt))
}

/** The user message of the default summarizer's request. */
export function summaryRequestText(input: SummarizeInput): string {
  const previous =
    input.previousSummary === undefined
      ? ''
      : `<previous-summary>\n${input.previousSummary}\n</previous-summary>\n\n`
  return `${previous}<conversation>\n${input.conversation}\n</conversation>\n\nWrite the summary now (at most about ${input.maxTokens} tokens).`
}

/**
 * The call of the default summarizer: {@link SUMMARY_SYSTEM_PROMPT} and the serialized
 * conversation, no tools, no prefill. It goes through the loop's model-call path like a step's
 * call (fitting, retries, `recover`, trace, usage), as phase `'compaction'`.
 */
export function summaryCallSpec(model: ModelInfo, input: SummarizeInput, step: number): CallSpec {
  const request: Message = {
    role: 'user',
    content: [{ type: 'text', text: summaryRequestText(input) }],
  }
  return {
    turn: {
      model,
      system: [
        { id: SUMMARY_SECTION_ID, text: SUMMARY_SYSTEM_PROMPT, priority: 1, cache: 'stable' },
      ],
      messages: [request],
      userSections: [],
      tools: [],
      vars: {},
      omitted: [],
    },
    extra: [],
    opensReply: false,
    maxTokens: input.maxTokens,
    step,
    phase: 'compaction',
  }
}

/** The summary a summary call replied, or the error that ended it. */
export function summaryText(result: CallResult): string {
  if (result.kind === 'failed') throw result.error
  if (result.kind === 'aborted') throw abortedProviderError()
  const text = result.reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  return text.trim()
}
