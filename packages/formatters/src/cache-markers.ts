import type { Message } from '@contextkit/core'
import { assertArray } from '@contextkit/core'
import { MAX_CACHE_MARKERS } from '@contextkit/core/cache'
import type { BuildOptions, CacheControl, CacheTtl, FormattedBlock } from './types.js'

/**
 * Put `cache_control` on the requested blocks (given in request order: system, then messages),
 * keeping only the deepest `MAX_CACHE_MARKERS` (`@contextkit/core/cache`). Thinking blocks never get one. Returns how
 * many were placed. With `ttl`, every marker carries it.
 */
export function applyCacheMarkers(requested: readonly FormattedBlock[], ttl?: CacheTtl): number {
  assertArray(requested, 'applyCacheMarkers', 'requested')
  const markable = requested.filter(
    (b): b is Exclude<FormattedBlock, { type: 'thinking' | 'redacted_thinking' }> =>
      b.type !== 'thinking' && b.type !== 'redacted_thinking',
  )
  const kept = [...new Set(markable)].slice(-MAX_CACHE_MARKERS)
  const marker: CacheControl =
    ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl }
  for (const block of kept) block.cache_control = { ...marker }
  return kept.length
}

/** The last block of `blocks` that may carry a cache marker (not thinking, plain or redacted), if any. */
export function lastMarkable(blocks: readonly FormattedBlock[]): FormattedBlock | undefined {
  return blocks[lastMarkableIndex(blocks)]
}

/** Index of the last block of `blocks`, from `from` on, that may carry a cache marker; -1: none. */
export function lastMarkableIndex(blocks: readonly FormattedBlock[], from = 0): number {
  for (let i = blocks.length - 1; i >= from; i--) {
    const type = blocks[i]?.type
    if (type !== 'thinking' && type !== 'redacted_thinking') return i
  }
  return -1
}

/**
 * The cache markers one request asks for, under its `BuildOptions`: `promptCaching: false`
 * drops them all, `cacheTtl` goes into each, `hasCacheMarker` decides per conversation message.
 */
export class CacheMarks {
  readonly #blocks: FormattedBlock[] = []
  readonly #enabled: boolean
  readonly #ttl: CacheTtl | undefined
  readonly #decide: (message: Message, index: number) => boolean

  constructor(options: BuildOptions) {
    this.#enabled = options.promptCaching !== false
    this.#ttl = options.cacheTtl
    this.#decide = options.hasCacheMarker ?? ((m) => m.cacheBreakpoint === true)
  }

  /** Whether conversation message `index` wants a breakpoint after it (always `false` when caching is off). */
  wants(message: Message, index: number): boolean {
    return this.#enabled && this.#decide(message, index) === true
  }

  /** Request a marker on `block` (ignored when caching is off or there is no block). */
  add(block: FormattedBlock | undefined): void {
    if (this.#enabled && block) this.#blocks.push(block)
  }

  /** Place the markers; returns how many were placed. */
  apply(): number {
    return applyCacheMarkers(this.#blocks, this.#ttl)
  }
}
