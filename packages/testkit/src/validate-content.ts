/**
 * Empty content rules, checked on messages as sent (a string `content` is one text block): the
 * API refuses empty content anywhere but an optional final assistant turn, empty text blocks
 * anywhere, and a message whose text blocks are all whitespace.
 */

/** `messages.N: …` — empty content (`""` or `[]`) anywhere but the final assistant turn. */
export function emptyContentMessage(index: number): string {
  return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`
}

/** The API's message for an empty text block in `where` (`messages` or `system`). */
export function emptyTextMessage(where: 'messages' | 'system'): string {
  return `${where}: text content blocks must be non-empty`
}

/** The API's message for a message whose text is only whitespace. */
export const WHITESPACE_TEXT_MESSAGE =
  'messages: text content blocks must contain non-whitespace text'

type Block = { type?: unknown; text?: unknown; content?: unknown }

function textBlocks(blocks: readonly Block[]): string[] {
  return blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
}

/** Text blocks of `blocks` and of the content of the `tool_result`s among them. */
function allTexts(blocks: readonly Block[]): string[] {
  const out = textBlocks(blocks)
  for (const b of blocks) {
    if (b.type === 'tool_result' && Array.isArray(b.content))
      out.push(...textBlocks(b.content as Block[]))
  }
  return out
}

/**
 * The first empty-content problem of a (structurally valid) request body, or `undefined`.
 * Whitespace-only text is refused only when the message has no other text with non-whitespace
 * in it, as the API does.
 */
export function contentProblem(raw: Record<string, unknown>): string | undefined {
  if (Array.isArray(raw.system) && allTexts(raw.system as Block[]).some((t) => t === '')) {
    return emptyTextMessage('system')
  }
  const messages = (Array.isArray(raw.messages) ? raw.messages : []) as {
    role?: unknown
    content?: unknown
  }[]
  for (let i = 0; i < messages.length; i++) {
    const { role, content } = messages[i]!
    const finalAssistant = i === messages.length - 1 && role === 'assistant'
    if (content === '' || (Array.isArray(content) && content.length === 0)) {
      if (finalAssistant) continue
      return emptyContentMessage(i)
    }
    const blocks: Block[] =
      typeof content === 'string'
        ? [{ type: 'text', text: content }]
        : Array.isArray(content)
          ? content
          : []
    const texts = allTexts(blocks)
    if (texts.some((t) => t === '')) return emptyTextMessage('messages')
    const own = textBlocks(blocks)
    if (own.length > 0 && own.every((t) => t.trim() === '')) return WHITESPACE_TEXT_MESSAGE
  }
  return undefined
}
