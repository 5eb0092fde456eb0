import { ConfigurationError, type ContentBlock, type ImageBlock } from '@contextkit/core'
import { UnsupportedContentError } from './errors.js'
import type { FormattedImageBlock, FormatWarning } from './types.js'

/** What to do with content a format cannot carry. */
export type UnsupportedMediaPolicy = 'error' | 'strip'

/** Throw `ConfigurationError` unless `policy` is `'error'` or `'strip'`. */
export function checkMediaPolicy(policy: unknown): void {
  if (policy !== 'error' && policy !== 'strip')
    throw new ConfigurationError(
      `unsupportedMedia must be 'error' or 'strip', got ${String(policy)}`,
    )
}

/** Core image → Anthropic-shaped image block. */
export function toImageBlock(image: ImageBlock): FormattedImageBlock {
  return {
    type: 'image',
    source: { type: 'base64', media_type: image.mediaType, data: image.data },
  }
}

/**
 * Handle content the format cannot carry: throw {@link UnsupportedContentError} under `'error'`,
 * or record a warning under `'strip'` (the caller then leaves the block out).
 */
export function unsupported(
  policy: UnsupportedMediaPolicy,
  block: ContentBlock,
  formatter: string,
  messageIndex: number,
  warnings: FormatWarning[],
): void {
  const details = { formatter, messageIndex, blockType: block.type }
  if (policy === 'error') {
    throw new UnsupportedContentError(
      `${formatter} cannot carry a ${block.type} block (message ${messageIndex}); set unsupportedMedia: 'strip' to drop it`,
      { details },
    )
  }
  warnings.push({
    code: `${block.type}_stripped`,
    message: `${formatter} dropped an unsupported ${block.type} block from message ${messageIndex}`,
    details,
  })
}
