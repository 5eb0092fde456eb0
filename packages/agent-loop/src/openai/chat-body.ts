import type {
  FormattedBlock,
  FormattedImageBlock,
  FormattedMessage,
  FormattedTextBlock,
  ProviderRequest,
} from '../provider/contract.js'

/** An OpenAI chat message as sent in `messages`. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatUserPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

/** A part of a user message: text or an image (as a data URL). */
export type ChatUserPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }

/** A tool call of an assistant message. */
export interface ChatToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** Something the conversion changed on purpose (reported as a provider `warning`). */
export interface ChatBodyWarning {
  /** Which change it was: one of `CHAT_BODY_WARNINGS`. */
  code: string
  /** What was changed and why, for a person. */
  message: string
}

/** Warning codes of `toChatMessages`. */
export const CHAT_BODY_WARNINGS = Object.freeze({
  /** Thinking blocks of earlier replies are not sent back: chat servers take no reasoning input. */
  thinkingDropped: 'openai_thinking_dropped',
  /** A tool result's images went into a user message after the tool messages (tool messages take text only). */
  toolImagesMoved: 'openai_tool_images_moved',
} as const)

function imagePart(b: FormattedImageBlock): ChatUserPart {
  return {
    type: 'image_url',
    image_url: { url: `data:${b.source.media_type};base64,${b.source.data}` },
  }
}

function textOf(blocks: readonly (FormattedTextBlock | FormattedImageBlock)[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')
}

function userParts(blocks: readonly FormattedBlock[]): ChatUserPart[] {
  const parts: ChatUserPart[] = []
  for (const b of blocks) {
    if (b.type === 'text') parts.push({ type: 'text', text: b.text })
    else if (b.type === 'image') parts.push(imagePart(b))
  }
  return parts
}

/** One user message: tool results first (as `tool` messages), then its text and images. */
function userMessages(m: FormattedMessage, warn: (w: ChatBodyWarning) => void): ChatMessage[] {
  const out: ChatMessage[] = []
  const movedImages: ChatUserPart[] = []
  for (const b of m.content) {
    if (b.type !== 'tool_result') continue
    const images = b.content.filter((c) => c.type === 'image')
    const text =
      textOf(b.content) || (images.length > 0 ? '(the result is the image(s) sent next)' : '')
    out.push({
      role: 'tool',
      tool_call_id: b.tool_use_id,
      content: b.is_error ? `Error: ${text}` : text,
    })
    for (const c of images) movedImages.push(imagePart(c))
  }
  if (movedImages.length > 0) {
    warn({
      code: CHAT_BODY_WARNINGS.toolImagesMoved,
      message: `${movedImages.length} tool-result image(s) sent in a user message after the tool messages`,
    })
    out.push({
      role: 'user',
      content: [{ type: 'text', text: 'Images returned by the tools:' }, ...movedImages],
    })
  }
  const parts = userParts(m.content)
  if (parts.length === 0) return out
  const onlyText = parts.every((p) => p.type === 'text')
  out.push({
    role: 'user',
    content: onlyText ? parts.map((p) => (p.type === 'text' ? p.text : '')).join('') : parts,
  })
  return out
}

function assistantMessage(m: FormattedMessage, warn: (w: ChatBodyWarning) => void): ChatMessage {
  let text = ''
  const calls: ChatToolCall[] = []
  let thinking = 0
  for (const b of m.content) {
    if (b.type === 'text') text += b.text
    else if (b.type === 'tool_use') {
      calls.push({
        id: b.id,
        type: 'function',
        function: { name: b.name, arguments: JSON.stringify(b.input) },
      })
    } else if (b.type === 'thinking' || b.type === 'redacted_thinking') thinking++
  }
  if (thinking > 0) {
    warn({
      code: CHAT_BODY_WARNINGS.thinkingDropped,
      message: `${thinking} thinking block(s) of an earlier reply not sent (chat servers take no reasoning input)`,
    })
  }
  return {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  }
}

/**
 * The formatter's provider-neutral request as OpenAI chat `messages`: the system blocks joined
 * into one `system` message; a user message's tool results become `tool` messages (an error result
 * prefixed `Error: `), its text and images a `user` message (images as data URLs); an assistant
 * message's text its `content` and its tool calls `tool_calls` (thinking is not sent back). A
 * trailing assistant message stays last: servers that continue it (vLLM, llama.cpp) do.
 */
export function toChatMessages(
  request: Pick<ProviderRequest, 'system' | 'messages'>,
  warn: (w: ChatBodyWarning) => void = () => undefined,
): ChatMessage[] {
  const out: ChatMessage[] = []
  const system = request.system.map((b) => b.text).join('\n\n')
  if (system !== '') out.push({ role: 'system', content: system })
  for (const m of request.messages) {
    if (m.role === 'user') out.push(...userMessages(m, warn))
    else out.push(assistantMessage(m, warn))
  }
  return out
}

/** The request's native tools as chat `tools` (`{ type: 'function', function }`). */
export function toChatTools(request: Pick<ProviderRequest, 'nativeTools'>): unknown[] | undefined {
  const tools = request.nativeTools ?? []
  if (tools.length === 0) return undefined
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  }))
}
