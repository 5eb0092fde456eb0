import type Anthropic from '@anthropic-ai/sdk'
import type { FormattedBlock, NativeToolDefinition } from '@contextkit/formatters'
import { ProviderError } from '../errors.js'
import type { ProviderRequest } from '../provider.js'

/** What the provider sends: the SDK's streaming create params. */
export type AnthropicStreamParams = Anthropic.Messages.MessageCreateParamsStreaming

/** The API's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024

function toBlock(block: FormattedBlock): Anthropic.Messages.ContentBlockParam {
  if (block.type === 'thinking') {
    // The API wants the signature it returned; a thinking block parsed from text has none.
    return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' }
  }
  return block
}

function toTool(tool: NativeToolDefinition): Anthropic.Messages.Tool {
  const { type: _type, ...rest } = tool.input_schema
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { ...rest, type: 'object' },
    ...(tool.cache_control ? { cache_control: tool.cache_control } : {}),
  }
}

/**
 * Map a loop request (a formatter's Anthropic-shaped request plus model, `maxTokens`, thinking)
 * onto `client.messages.create({ stream: true })` params: system blocks and tool definitions
 * (with their `cache_control`), messages, stop sequences and native tools are field copies. Throws a
 * non-retryable `ProviderError` for a prompt-string request (ChatML, completions formats): those
 * go to a completions endpoint, not the Messages API.
 */
export function toStreamParams(request: ProviderRequest): AnthropicStreamParams {
  if (request.prompt !== undefined && request.messages.length === 0) {
    throw new ProviderError(
      'The Anthropic provider sends chat messages; a prompt-string format (ChatML, completions) needs a completions provider',
      { errorType: 'unsupported_request' },
    )
  }
  const params: AnthropicStreamParams = {
    model: request.model.id,
    max_tokens: request.maxTokens,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content.map(toBlock) })),
    stream: true,
  }
  if (request.system.length > 0) params.system = request.system
  if (request.stopSequences.length > 0) params.stop_sequences = request.stopSequences
  if (request.nativeTools && request.nativeTools.length > 0)
    params.tools = request.nativeTools.map(toTool)
  if (request.thinking?.enabled) {
    const wanted = Math.max(
      MIN_THINKING_BUDGET,
      request.thinking.budgetTokens ?? MIN_THINKING_BUDGET,
    )
    // the budget must stay below max_tokens
    const budget = Math.max(MIN_THINKING_BUDGET, Math.min(wanted, request.maxTokens - 1))
    params.thinking = { type: 'enabled', budget_tokens: budget }
  }
  return params
}
