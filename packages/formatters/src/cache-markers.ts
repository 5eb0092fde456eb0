import type { FormattedBlock } from './types.js'

/** The API's limit on `cache_control` markers per request. */
export const MAX_CACHE_MARKERS = 4

/**
 * Put `cache_control` on the requested blocks (given in request order: system, then messages),
 * keeping only the deepest {@link MAX_CACHE_MARKERS}. Thinking blocks never get one. Returns how
 * many were placed.
 */
export function applyCacheMarkers(requested: readonly FormattedBlock[]): number {
  const markable = requested.filter(
    (b): b is Exclude<FormattedBlock, { type: 'thinking' }> => b.type !== 'thinking',
  )
  const kept = [...new Set(markable)].slice(-MAX_CACHE_MARKERS)
  for (const block of kept) block.cache_control = { type: 'ephemeral' }
  return kept.length
}

/** The last block of `blocks` that may carry a cache marker (not thinking), if any. */
export function lastMarkable(blocks: readonly FormattedBlock[]): FormattedBlock | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!
    if (b.type !== 'thinking') return b
  }
  return undefined
}
