import { assertObject, type ImageBlock, type TextBlock } from '@contextkit/core'
import { ImageMediaTypeSchema } from '@contextkit/core/schemas'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { McpToolError } from './errors.js'
import { structuredExtra } from './structured-content.js'

/** A content block a tool result can hold. */
export type McpResultBlock = TextBlock | ImageBlock
type McpContent = CallToolResult['content'][number]

const text = (t: string): TextBlock => ({ type: 'text', text: t })

/** An image the model can take, or a note saying why it was left out. */
function image(data: string, mimeType: string, what: string): McpResultBlock {
  const media = ImageMediaTypeSchema.safeParse(mimeType)
  if (media.success) return { type: 'image', mediaType: media.data, data }
  return text(`[${what} (${mimeType}) left out: the model takes PNG, JPEG, GIF or WebP images]`)
}

/** One MCP content block as the blocks of a tool result. */
function contentBlock(block: McpContent): McpResultBlock {
  switch (block.type) {
    case 'text':
      return text(block.text)
    case 'image':
      return image(block.data, block.mimeType, 'image')
    case 'audio':
      return text(`[audio (${block.mimeType}) left out: the model does not take audio]`)
    case 'resource_link': {
      const about = block.description ? `: ${block.description}` : ''
      return text(`Resource link: ${block.name} <${block.uri}>${about}`)
    }
    case 'resource': {
      const r = block.resource
      if (typeof r !== 'object' || r === null) return text('[a resource without content left out]')
      if ('text' in r && typeof r.text === 'string') return text(`Resource <${r.uri}>:\n${r.text}`)
      const mime = r.mimeType ?? 'application/octet-stream'
      if ('blob' in r && mime.startsWith('image/'))
        return image(r.blob, mime, `resource <${r.uri}>`)
      return text(`[resource <${r.uri}> (${mime}) left out: binary content]`)
    }
    default:
      return text(`[content of type "${(block as { type: string }).type}" left out]`)
  }
}

/** `value` as JSON text, bigints as digits; `undefined` when it cannot be written. */
function json(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

/**
 * The content of a loop tool result for an MCP `CallToolResult`: text blocks as text, images
 * the model takes as images (others, and audio, as a note saying what was left out), resource
 * links and text resources as text; `structuredContent` as JSON text only with what it adds to
 * the content (servers are asked to send both, and some put the content blocks themselves in
 * it): nothing a block carries already, no binary data. A pre-2024-11 result (`toolResult`) is
 * sent as JSON.
 *
 * @throws McpToolError when the result has `isError: true`: its text is the message, so the
 * model reads what the server said.
 */
export function mcpResultContent(
  result: CallToolResult | { toolResult: unknown },
): McpResultBlock[] {
  assertObject(result, 'mcpResultContent', 'result')
  if (!('content' in result) && 'toolResult' in result) {
    return [text(json(result.toolResult) ?? '')]
  }
  const r = result as CallToolResult
  const content = (Array.isArray(r.content) ? r.content : []).filter(
    (b): b is McpContent => typeof b === 'object' && b !== null,
  )
  const blocks = content.map(contentBlock)
  const extra = structuredExtra(r.structuredContent, content)
  if (extra !== undefined) blocks.push(text(extra))
  if (r.isError === true) {
    const said = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n')
    throw new McpToolError(said || 'the MCP tool reported an error without saying why')
  }
  return blocks
}
