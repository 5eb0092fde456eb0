/**
 * The semantic checks where agents trip on the real API, in the order below: parameters
 * (`temperature`, `thinking`, tools, `tool_choice`), empty content, `max_tokens` limits, too many
 * `cache_control` blocks or one on thinking, orphan `tool_result`s / `tool_use`s, prefill rules
 * (trailing whitespace, models that reject it, thinking), and a prompt longer than the context
 * window.
 */
import type { ResolvedModel } from './models.js'
import { badRequest, type RequestProblem } from './request-problem.js'
import { requestTokens } from './token-rule.js'
import { contentProblem } from './validate-content.js'
import { paramsProblem } from './validate-params.js'
import type { WireMessagesRequest, WireRequestBlock } from './wire-types.js'

/** The exact message the API sends when a no-prefill model gets a trailing assistant turn. */
export const NO_PREFILL_MESSAGE =
  'This model does not support assistant message prefill. The conversation must end with a user message.'

/** The API's limit on blocks carrying `cache_control`. */
export const MAX_CACHE_CONTROL_BLOCKS = 4

function* allBlocks(
  request: WireMessagesRequest,
): Generator<WireRequestBlock | { type: string; cache_control?: unknown }> {
  yield* request.system
  yield* request.tools.map((t) => ({ type: 'tool', cache_control: t.cache_control }))
  for (const m of request.messages) {
    for (const b of m.content) {
      yield b
      if (b.type === 'tool_result' && Array.isArray(b.content)) {
        yield* b.content as WireRequestBlock[]
      }
    }
  }
}

function endsWithWhitespace(blocks: readonly WireRequestBlock[]): boolean {
  const last = blocks[blocks.length - 1]
  return last?.type === 'text' && typeof last.text === 'string' && /\s$/.test(last.text)
}

/** The API's message for a prompt over the context window. */
export function promptTooLongMessage(tokens: number, maximum: number): string {
  return `prompt is too long: ${tokens} tokens > ${maximum} maximum`
}

/**
 * Returns the API's answer for the first rule `request` breaks, or `undefined` when it is
 * acceptable. `merged` is `request.messages` with same-role turns merged; `betas` are the
 * request's `anthropic-beta` values. The prompt is counted like `count_tokens` counts it.
 */
export function validateMessagesRequest(
  request: WireMessagesRequest,
  model: ResolvedModel,
  merged: WireMessagesRequest['messages'],
  betas: readonly string[] = [],
): RequestProblem | undefined {
  const problem = conversationProblem(request, model, merged, betas)
  if (problem) return badRequest(problem)
  const tokens = requestTokens(request, merged)
  if (tokens > model.maxInputTokens) {
    return badRequest(promptTooLongMessage(tokens, model.maxInputTokens))
  }
  return undefined
}

function conversationProblem(
  request: WireMessagesRequest,
  model: ResolvedModel,
  merged: WireMessagesRequest['messages'],
  betas: readonly string[],
): string | undefined {
  const params = paramsProblem(request.raw, model, betas)
  if (params) return params
  const content = contentProblem(request.raw)
  if (content) return content
  if (request.max_tokens !== undefined && request.max_tokens > model.maxTokens) {
    return `max_tokens: ${request.max_tokens} > ${model.maxTokens}, which is the maximum allowed number of output tokens for ${model.id}`
  }
  let cached = 0
  for (const b of allBlocks(request)) {
    if (b.cache_control === undefined || b.cache_control === null) continue
    if (b.type === 'thinking' || b.type === 'redacted_thinking') {
      return 'messages: cache_control cannot be set for thinking blocks'
    }
    cached++
  }
  if (cached > MAX_CACHE_CONTROL_BLOCKS) {
    return `A maximum of ${MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be provided. Found ${cached}.`
  }
  for (let i = 0; i < merged.length; i++) {
    const m = merged[i]!
    const prev = merged[i - 1]
    const next = merged[i + 1]
    if (m.role === 'user') {
      const offered = new Set(
        prev?.role === 'assistant'
          ? prev.content.filter((b) => b.type === 'tool_use').map((b) => b.id as string)
          : [],
      )
      const orphans = m.content
        .filter((b) => b.type === 'tool_result' && !offered.has(b.tool_use_id as string))
        .map((b) => b.tool_use_id as string)
      if (orphans.length > 0) {
        return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${orphans.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`
      }
    } else if (next) {
      const answered = new Set(
        next.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string),
      )
      const missing = m.content
        .filter((b) => b.type === 'tool_use' && !answered.has(b.id as string))
        .map((b) => b.id as string)
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
      }
    }
  }
  const last = merged[merged.length - 1]
  if (last?.role === 'assistant') {
    if (!model.supportsPrefill) return NO_PREFILL_MESSAGE
    if (endsWithWhitespace(last.content)) {
      return 'messages: final assistant content cannot end with trailing whitespace'
    }
    const first = last.content[0]
    if (request.thinking && first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
      return `messages.${merged.length - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type ?? 'nothing'}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block. To avoid this requirement, disable \`thinking\`.`
    }
  }
  return undefined
}
