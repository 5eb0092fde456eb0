import type {
  CacheControl,
  FormattedBlock,
  FormattedMessage,
  ProviderRequest,
} from '../provider/contract.js'

/** A part of an AI SDK prompt message (the fields of spec v2, v3 and v4 this adapter writes). */
export type AiSdkPart = Record<string, unknown> & { type: string }

/** An AI SDK prompt message (`LanguageModelV4Message` and its v2/v3 twins). */
export type AiSdkMessage =
  | { role: 'system'; content: string; providerOptions?: Record<string, unknown> }
  | { role: 'user' | 'assistant' | 'tool'; content: AiSdkPart[] }

/** The AI SDK model spec the prompt is written for: file parts differ between them. */
export type AiSdkSpec = 'v2' | 'v3' | 'v4'

/** A base64 file in a user or assistant message: spec v4 wraps the data, v2/v3 take it as is. */
function filePart(data: string, mediaType: string, spec: AiSdkSpec): AiSdkPart {
  return { type: 'file', data: spec === 'v4' ? { type: 'data', data } : data, mediaType }
}

/** A base64 file inside a tool result's `content` output (`file` in v4, `file-data` in v3, `media` in v2). */
function resultFile(data: string, mediaType: string, spec: AiSdkSpec): AiSdkPart {
  if (spec === 'v4') return { type: 'file', data: { type: 'data', data }, mediaType }
  return { type: spec === 'v3' ? 'file-data' : 'media', data, mediaType }
}

/** A cache breakpoint as the AI SDK's Anthropic provider takes it (other providers ignore it). */
function cached(cc: CacheControl | undefined): { providerOptions?: Record<string, unknown> } {
  return cc ? { providerOptions: { anthropic: { cacheControl: cc } } } : {}
}

function userPart(b: FormattedBlock, spec: AiSdkSpec): AiSdkPart | undefined {
  if (b.type === 'text') return { type: 'text', text: b.text, ...cached(b.cache_control) }
  if (b.type === 'image') {
    return { ...filePart(b.source.data, b.source.media_type, spec), ...cached(b.cache_control) }
  }
  return undefined
}

function toolResultPart(
  b: Extract<FormattedBlock, { type: 'tool_result' }>,
  names: ReadonlyMap<string, string>,
  spec: AiSdkSpec,
): AiSdkPart {
  const hasImage = b.content.some((c) => c.type === 'image')
  const text = b.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
  const output = hasImage
    ? {
        type: 'content',
        value: b.content.map((c) =>
          c.type === 'text'
            ? { type: 'text', text: c.text }
            : resultFile(c.source.data, c.source.media_type, spec),
        ),
      }
    : { type: b.is_error ? 'error-text' : 'text', value: text }
  return {
    type: 'tool-result',
    toolCallId: b.tool_use_id,
    toolName: names.get(b.tool_use_id) ?? 'unknown',
    output,
    ...cached(b.cache_control),
  }
}

function assistantPart(b: FormattedBlock): AiSdkPart | undefined {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text, ...cached(b.cache_control) }
    case 'thinking':
      return {
        type: 'reasoning',
        text: b.thinking,
        ...(b.signature ? { providerOptions: { anthropic: { signature: b.signature } } } : {}),
      }
    case 'redacted_thinking':
      return {
        type: 'reasoning',
        text: '',
        providerOptions: { anthropic: { redactedData: b.data } },
      }
    case 'tool_use':
      return {
        type: 'tool-call',
        toolCallId: b.id,
        toolName: b.name,
        input: b.input,
        ...cached(b.cache_control),
      }
    default:
      return undefined
  }
}

function pushMessage(
  out: AiSdkMessage[],
  m: FormattedMessage,
  names: Map<string, string>,
  spec: AiSdkSpec,
): void {
  if (m.role === 'assistant') {
    for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name)
    const content = m.content.flatMap((b) => assistantPart(b) ?? [])
    if (content.length > 0) out.push({ role: 'assistant', content })
    return
  }
  const results = m.content.flatMap((b) =>
    b.type === 'tool_result' ? [toolResultPart(b, names, spec)] : [],
  )
  if (results.length > 0) out.push({ role: 'tool', content: results })
  const content = m.content.flatMap((b) => userPart(b, spec) ?? [])
  if (content.length > 0) out.push({ role: 'user', content })
}

/**
 * The formatter's provider-neutral request as an AI SDK prompt: one `system` message per system
 * block; cache breakpoints (`cache_control`) as `providerOptions.anthropic.cacheControl`; user text
 * and images (`file` parts with base64 data, as `spec` writes them); a user message's tool
 * results as a `tool` message (`text`, `error-text`, or `content` when a result holds images);
 * assistant text, thinking (`reasoning`, its signature under `providerOptions.anthropic`) and tool
 * calls (`tool-call` with the input object).
 */
export function toAiSdkPrompt(
  request: Pick<ProviderRequest, 'system' | 'messages'>,
  spec: AiSdkSpec = 'v4',
): AiSdkMessage[] {
  // one system message per block, so a cache breakpoint after the stable blocks stays where it is
  const out: AiSdkMessage[] = request.system
    .filter((b) => b.text !== '')
    .map((b) => ({ role: 'system', content: b.text, ...cached(b.cache_control) }))
  const names = new Map<string, string>()
  for (const m of request.messages) pushMessage(out, m, names, spec)
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
    ...cached(t.cache_control),
  }))
}
