import type { FormattedBlock, FormattedMessage } from '@contextkit/formatters'
import type { ProviderRequest } from '../provider.js'

/** A part of an AI SDK prompt message (the fields of spec v2, v3 and v4 this adapter writes). */
export type AiSdkPart = Record<string, unknown> & { type: string }

/** An AI SDK prompt message (`LanguageModelV4Message` and its v2/v3 twins). */
export type AiSdkMessage =
  | { role: 'system'; content: string }
  | { role: 'user' | 'assistant' | 'tool'; content: AiSdkPart[] }

function userPart(b: FormattedBlock): AiSdkPart | undefined {
  if (b.type === 'text') return { type: 'text', text: b.text }
  if (b.type === 'image')
    return { type: 'file', data: b.source.data, mediaType: b.source.media_type }
  return undefined
}

function toolResultPart(
  b: Extract<FormattedBlock, { type: 'tool_result' }>,
  names: ReadonlyMap<string, string>,
): AiSdkPart {
  const hasImage = b.content.some((c) => c.type === 'image')
  const text = b.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
  const output = hasImage
    ? {
        type: 'content',
        value: b.content.map((c) =>
          c.type === 'text'
            ? { type: 'text', text: c.text }
            : { type: 'file', data: c.source.data, mediaType: c.source.media_type },
        ),
      }
    : { type: b.is_error ? 'error-text' : 'text', value: text }
  return {
    type: 'tool-result',
    toolCallId: b.tool_use_id,
    toolName: names.get(b.tool_use_id) ?? 'unknown',
    output,
  }
}

function assistantPart(b: FormattedBlock): AiSdkPart | undefined {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text }
    case 'thinking':
      return {
        type: 'reasoning',
        text: b.thinking,
        ...(b.signature ? { providerOptions: { anthropic: { signature: b.signature } } } : {}),
      }
    case 'tool_use':
      return { type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input }
    default:
      return undefined
  }
}

function pushMessage(out: AiSdkMessage[], m: FormattedMessage, names: Map<string, string>): void {
  if (m.role === 'assistant') {
    for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name)
    const content = m.content.flatMap((b) => assistantPart(b) ?? [])
    if (content.length > 0) out.push({ role: 'assistant', content })
    return
  }
  const results = m.content.flatMap((b) =>
    b.type === 'tool_result' ? [toolResultPart(b, names)] : [],
  )
  if (results.length > 0) out.push({ role: 'tool', content: results })
  const content = m.content.flatMap((b) => userPart(b) ?? [])
  if (content.length > 0) out.push({ role: 'user', content })
}

/**
 * The formatter's provider-neutral request as an AI SDK prompt: the system blocks joined into one
 * `system` message; user text and images (`file` parts with base64 data); a user message's tool
 * results as a `tool` message (`text`, `error-text`, or `content` when a result holds images);
 * assistant text, thinking (`reasoning`, its signature under `providerOptions.anthropic`) and tool
 * calls (`tool-call` with the input object).
 */
export function toAiSdkPrompt(
  request: Pick<ProviderRequest, 'system' | 'messages'>,
): AiSdkMessage[] {
  const out: AiSdkMessage[] = []
  const system = request.system.map((b) => b.text).join('\n\n')
  if (system !== '') out.push({ role: 'system', content: system })
  const names = new Map<string, string>()
  for (const m of request.messages) pushMessage(out, m, names)
  return out
}

/** The request's native tools as AI SDK function tools. */
export function toAiSdkTools(
  request: Pick<ProviderRequest, 'nativeTools'>,
): AiSdkPart[] | undefined {
  const tools = request.nativeTools ?? []
  if (tools.length === 0) return undefined
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    inputSchema: t.input_schema,
  }))
}
