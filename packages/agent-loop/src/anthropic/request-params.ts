import type Anthropic from '@anthropic-ai/sdk'
import type { ModelInfo } from '@contextkit/core'
import { assertArray, assertObject, assertOptions } from '@contextkit/core'
import type {
  FormattedBlock,
  FormattedMessage,
  NativeToolDefinition,
  ProviderRequest,
} from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import { anthropicToolChoice } from '../provider/tool-choice.js'

/** What the provider sends: the SDK's streaming create params. */
export type AnthropicStreamParams = Anthropic.Messages.MessageCreateParamsStreaming

/** The API's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024

/** The API's limit on `cache_control` markers per request. */
export const MAX_CACHE_CONTROL_BLOCKS = 4

/** Warning codes {@link toStreamParams} reports (as provider `warning` events). */
export const ANTHROPIC_REQUEST_WARNINGS = Object.freeze({
  /** A thinking block without a signature was left out: the API only takes signed thinking back. */
  unsignedThinking: 'agent_loop_unsigned_thinking_dropped',
  /** More than four `cache_control` markers: the earliest were removed, the deepest four kept. */
  cacheMarkers: 'agent_loop_cache_markers_dropped',
  /** Thinking was asked for but cannot be sent (a model without thinking, `maxTokens` too small). */
  thinking: 'agent_loop_thinking_dropped',
  /** A forced `toolChoice` (`'any'`, a named tool) with thinking on: the API refuses it, `auto` is sent. */
  toolChoice: 'agent_loop_tool_choice_relaxed',
} as const)

/** A change {@link toStreamParams} made to the request on purpose. */
export interface RequestWarning {
  /** Which change it was: one of `ANTHROPIC_REQUEST_WARNINGS`. */
  code: string
  /** What was changed and why, for a person. */
  message: string
}

type CacheControl = { type: 'ephemeral'; ttl?: '5m' | '1h' }
type Markable = { cache_control?: CacheControl | null }
type Param = Anthropic.Messages.ContentBlockParam

function copyCache(from: unknown, to: Markable): void {
  const marker = (from as Markable).cache_control
  if (marker) to.cache_control = { ...marker }
}

function imageBlock(block: Extract<FormattedBlock, { type: 'image' }>): Param {
  const out: Anthropic.Messages.ImageBlockParam = {
    type: 'image',
    source: { type: 'base64', media_type: block.source.media_type, data: block.source.data },
  }
  copyCache(block, out)
  return out
}

/** One formatted block as an API block, or `undefined` when it cannot be sent (unsigned thinking). */
function toBlock(block: FormattedBlock): Param | undefined {
  switch (block.type) {
    case 'text': {
      const out: Anthropic.Messages.TextBlockParam = { type: 'text', text: block.text }
      copyCache(block, out)
      return out
    }
    case 'image':
      return imageBlock(block)
    case 'thinking':
      // never a cache marker on thinking (the API refuses it); unsigned thinking cannot go back
      if (!block.signature) return undefined
      return { type: 'thinking', thinking: block.thinking, signature: block.signature }
    case 'redacted_thinking':
      // sent back exactly as received, never with a cache marker
      return { type: 'redacted_thinking', data: block.data }
    case 'tool_use': {
      const out: Anthropic.Messages.ToolUseBlockParam = {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: block.input,
      }
      copyCache(block, out)
      return out
    }
    case 'tool_result': {
      const out: Anthropic.Messages.ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        content: block.content.map((c) => {
          if (c.type === 'image') return imageBlock(c) as Anthropic.Messages.ImageBlockParam
          const text: Anthropic.Messages.TextBlockParam = { type: 'text', text: c.text }
          copyCache(c, text)
          return text
        }),
      }
      if (block.is_error) out.is_error = true
      copyCache(block, out)
      return out
    }
  }
}

function toTool(tool: NativeToolDefinition): Anthropic.Messages.Tool {
  const { type: _type, ...rest } = tool.input_schema
  const out: Anthropic.Messages.Tool = {
    name: tool.name,
    description: tool.description,
    input_schema: { ...rest, type: 'object' },
  }
  copyCache(tool, out as Markable)
  return out
}

function toMessages(
  messages: readonly FormattedMessage[],
  warnings: RequestWarning[],
): Anthropic.Messages.MessageParam[] {
  const out: Anthropic.Messages.MessageParam[] = []
  let dropped = 0
  for (const m of messages) {
    const content: Param[] = []
    for (const block of m.content) {
      const mapped = toBlock(block)
      if (mapped) content.push(mapped)
      else dropped++
    }
    // a message left empty would be refused; same-role neighbours are merged by the API
    if (content.length > 0 || m.content.length === 0) out.push({ role: m.role, content })
  }
  if (dropped > 0) {
    warnings.push({
      code: ANTHROPIC_REQUEST_WARNINGS.unsignedThinking,
      message: `${dropped} thinking block(s) without a signature were left out of the request (the API only takes back thinking it signed)`,
    })
  }
  return out
}

/** Keep the deepest {@link MAX_CACHE_CONTROL_BLOCKS} markers (order: tools, system, messages). */
function capCacheMarkers(params: AnthropicStreamParams, warnings: RequestWarning[]): void {
  const marked: Markable[] = []
  const visit = (b: unknown): void => {
    if ((b as Markable).cache_control) marked.push(b as Markable)
  }
  for (const t of params.tools ?? []) visit(t)
  for (const b of Array.isArray(params.system) ? params.system : []) visit(b)
  for (const m of params.messages) {
    if (typeof m.content === 'string') continue
    for (const b of m.content) {
      visit(b)
      if (b.type === 'tool_result' && Array.isArray(b.content)) for (const c of b.content) visit(c)
    }
  }
  const extra = marked.length - MAX_CACHE_CONTROL_BLOCKS
  if (extra <= 0) return
  for (const b of marked.slice(0, extra)) delete b.cache_control
  warnings.push({
    code: ANTHROPIC_REQUEST_WARNINGS.cacheMarkers,
    message: `${marked.length} cache_control markers were requested; the API takes ${MAX_CACHE_CONTROL_BLOCKS}, so the ${extra} earliest were removed`,
  })
}

/**
 * The `thinking` parameter for the model's thinking mode: `adaptive` models (and those whose
 * thinking is always on) get `{ type: 'adaptive' }`, `extended` ones `{ type: 'enabled',
 * budget_tokens }` with the budget at least 1,024 and below `max_tokens`.
 */
function thinkingParam(
  request: ProviderRequest,
  model: ModelInfo,
  warnings: RequestWarning[],
): Anthropic.Messages.ThinkingConfigParam | undefined {
  if (!request.thinking?.enabled) return undefined
  const mode = model.thinkingMode
  if (mode === 'adaptive' || mode === 'adaptive-always') return { type: 'adaptive' }
  if (mode === 'none') {
    warnings.push({
      code: ANTHROPIC_REQUEST_WARNINGS.thinking,
      message: `Thinking was asked for, but ${model.id} does not think; the request goes without it`,
    })
    return undefined
  }
  if (request.maxTokens <= MIN_THINKING_BUDGET) {
    warnings.push({
      code: ANTHROPIC_REQUEST_WARNINGS.thinking,
      message: `Thinking needs max_tokens above ${MIN_THINKING_BUDGET} (the smallest budget); max_tokens is ${request.maxTokens}, so the request goes without it`,
    })
    return undefined
  }
  const wanted = Math.max(MIN_THINKING_BUDGET, request.thinking.budgetTokens ?? MIN_THINKING_BUDGET)
  return { type: 'enabled', budget_tokens: Math.min(wanted, request.maxTokens - 1) }
}

/** Options of {@link toStreamParams}. */
export interface ToStreamParamsOptions {
  /** Receives each change made on purpose (unsigned thinking left out, markers over four, …). */
  onWarning?: (warning: RequestWarning) => void
}

/**
 * Map a loop request (a formatter's Anthropic-shaped request plus model, `maxTokens`, thinking)
 * onto `client.messages.create({ stream: true })` params. Every shape the formatters produce
 * goes through: native tools, the XML transcript with its prefilled assistant turn, stop
 * sequences, text/image/tool blocks (images inside tool results too), signed thinking blocks
 * (replayed verbatim), and `cache_control` markers wherever the formatter put them (tools,
 * system, message and tool-result blocks). The request is never mutated.
 *
 * What the API would refuse is fixed here, with a warning: thinking blocks without a signature
 * are left out; more than four `cache_control` markers keep the deepest four; thinking on a model
 * without it, or with `maxTokens` ≤ 1,024, is dropped. Thinking follows the model's
 * `thinkingMode` (`adaptive` → `{ type: 'adaptive' }`; `extended` → `enabled` with a budget).
 *
 * Throws a non-retryable `ProviderError` for a prompt-string request (ChatML, completions): those
 * go to a completions endpoint (`@contextkit/agent-loop/completions`), not the Messages API.
 */
export function toStreamParams(
  request: ProviderRequest,
  options: ToStreamParamsOptions = {},
): AnthropicStreamParams {
  assertObject(request, 'toStreamParams', 'request')
  assertArray(request.messages, 'toStreamParams', 'request.messages')
  assertOptions(options, 'toStreamParams')
  if (request.prompt !== undefined && request.messages.length === 0) {
    throw new ProviderError(
      'The Anthropic provider sends chat messages; a prompt-string format (ChatML, completions) needs a completions provider',
      { errorType: 'unsupported_request' },
    )
  }
  const warnings: RequestWarning[] = []
  const params: AnthropicStreamParams = {
    model: request.model.id,
    max_tokens: request.maxTokens,
    messages: toMessages(request.messages, warnings),
    stream: true,
  }
  if (request.system.length > 0) {
    params.system = request.system.map((b) => {
      const out: Anthropic.Messages.TextBlockParam = { type: 'text', text: b.text }
      copyCache(b, out)
      return out
    })
  }
  if (request.stopSequences.length > 0) params.stop_sequences = [...request.stopSequences]
  if (request.nativeTools && request.nativeTools.length > 0)
    params.tools = request.nativeTools.map(toTool)
  const thinking = thinkingParam(request, request.model, warnings)
  if (thinking) params.thinking = thinking
  if (params.tools && request.toolChoice)
    params.tool_choice = toolChoiceParam(request, params, warnings)
  capCacheMarkers(params, warnings)
  for (const w of warnings) options.onWarning?.(w)
  return params
}

/** The request's `toolChoice` as `tool_choice`; a forced one with thinking on becomes `auto`. */
function toolChoiceParam(
  request: ProviderRequest,
  params: AnthropicStreamParams,
  warnings: RequestWarning[],
): Anthropic.Messages.ToolChoice {
  const choice = anthropicToolChoice(request.toolChoice ?? 'auto')
  const thinking =
    (params.thinking !== undefined && params.thinking.type !== 'disabled') ||
    request.model.thinkingMode === 'adaptive-always'
  if ((choice.type === 'any' || choice.type === 'tool') && thinking) {
    warnings.push({
      code: ANTHROPIC_REQUEST_WARNINGS.toolChoice,
      message: `tool_choice "${choice.type}" cannot go with thinking; "auto" was sent instead`,
    })
    return { type: 'auto' }
  }
  return choice
}
