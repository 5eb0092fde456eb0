import type Anthropic from '@anthropic-ai/sdk'
import type { FormattedBlock, FormattedRequest, NativeToolDefinition } from '@contextkit/formatters'

/** What the runner sends: the SDK's stream parameters. */
export type StreamParams = Anthropic.Messages.MessageStreamParams

function toBlock(block: FormattedBlock): Anthropic.Messages.ContentBlockParam {
  switch (block.type) {
    case 'thinking':
      // The API wants the signature it returned; a thinking block without one (parsed from
      // XML text) is sent with an empty signature, which only matters with extended thinking.
      return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' }
    case 'tool_use':
      return block
    case 'tool_result':
      return block
    default:
      return block
  }
}

function toTool(tool: NativeToolDefinition): Anthropic.Messages.Tool {
  const { type: _type, ...rest } = tool.input_schema
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { ...rest, type: 'object' },
  }
}

/**
 * Map a formatter's provider-neutral request (step 7) onto `client.messages.stream()` params:
 * system blocks, messages, stop sequences and native tools are field copies.
 */
export function toStreamParams(
  request: FormattedRequest,
  model: string,
  maxTokens: number,
): StreamParams {
  const params: StreamParams = {
    model,
    max_tokens: maxTokens,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content.map(toBlock) })),
  }
  if (request.system.length > 0) params.system = request.system
  if (request.stopSequences.length > 0) params.stop_sequences = request.stopSequences
  if (request.nativeTools && request.nativeTools.length > 0) {
    params.tools = request.nativeTools.map(toTool)
  }
  return params
}
