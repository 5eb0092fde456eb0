import { ConfigurationError, type ContentBlock, type ImageBlock } from '@contextkit/core'
import { UnsupportedContentError } from './errors.js'
import type { FormattedImageBlock, FormatWarning } from './types.js'

/** What to do with content a format cannot carry. */
export type UnsupportedMediaPolicy = 'error' | 'strip'

/**
 * What `AnthropicXmlFormatter` does with images inside tool results: `'split'` ends the
 * assistant transcript before the image, puts the image in a user turn and continues the result
 * after it; `'error'` and `'strip'` as for {@link UnsupportedMediaPolicy}.
 */
export type ToolResultMediaPolicy = 'split' | UnsupportedMediaPolicy

/** Throw `ConfigurationError` unless `policy` is one of `allowed`. */
export function checkMediaPolicy(
  policy: unknown,
  allowed: readonly string[] = ['error', 'strip'],
): void {
  if (typeof policy !== 'string' || !allowed.includes(policy))
    throw new ConfigurationError(
      `unsupportedMedia must be ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${String(policy)}`,
    )
}

/** Throw `ConfigurationError` unless `value` is a boolean or undefined. */
export function checkFlag(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'boolean')
    throw new ConfigurationError(`${name} must be a boolean, got ${typeof value}`)
}

/** Core image → Anthropic-shaped image block. */
export function toImageBlock(image: ImageBlock): FormattedImageBlock {
  return {
    type: 'image',
    source: { type: 'base64', media_type: image.mediaType, data: image.data },
  }
}

/**
 * Where content sits: a message of `buildMessages` (its index), or a result of a
 * `formatToolResults` argument (its index and tool call id).
 */
export type ContentPosition = number | { result: number; toolCallId: string }

function describePosition(at: ContentPosition): { text: string; details: Record<string, unknown> } {
  if (typeof at === 'number') return { text: `message ${at}`, details: { messageIndex: at } }
  return {
    text: `tool result ${at.result} (tool call ${at.toolCallId})`,
    details: { resultIndex: at.result, toolCallId: at.toolCallId },
  }
}

/**
 * Handle content the format cannot carry: throw {@link UnsupportedContentError} under `'error'`,
 * or, under `'strip'`, record a warning on the request unless `warn` is `false` (the caller then
 * leaves the block out). `at` names where the block is, in the message and the details.
 */
export function unsupported(
  policy: UnsupportedMediaPolicy,
  block: ContentBlock,
  formatter: string,
  at: ContentPosition,
  warnings: FormatWarning[],
  warn = true,
): void {
  const where = describePosition(at)
  const details = { formatter, ...where.details, blockType: block.type }
  if (policy === 'error') {
    throw new UnsupportedContentError(
      `${formatter} cannot carry a ${block.type} block (${where.text}); set unsupportedMedia: 'strip' to drop it`,
      { details },
    )
  }
  if (!warn) return
  warnings.push({
    code: `${block.type}_stripped`,
    message: `${formatter} dropped an unsupported ${block.type} block from ${where.text}`,
    details,
  })
}
