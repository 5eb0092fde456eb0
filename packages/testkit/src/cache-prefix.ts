/**
 * A Messages request seen as the prompt-cache sees it: a sequence of blocks in the API's
 * order — `tools`, then `system`, then `messages` — each with its token count, the hash of the
 * whole prefix up to and including it, and whether it carries a `cache_control` breakpoint.
 *
 * Pure: no clock, no store. {@link PromptCache} decides reads and writes from this layout.
 */
import { createHash } from 'node:crypto'
import { blockText, blockTokens, TOKENS_PER_MESSAGE, toolText, toolTokens } from './token-rule.js'
import type { WireMessagesRequest, WireRequestBlock, WireRequestMessage } from './wire-types.js'

/** Lifetime of a cache entry: `'5m'` (the default) or `'1h'` (`cache_control.ttl: '1h'`). */
export type CacheTtl = '5m' | '1h'

/** Milliseconds of each TTL. */
export const CACHE_TTL_MS: Readonly<Record<CacheTtl, number>> = Object.freeze({
  '5m': 5 * 60_000,
  '1h': 60 * 60_000,
})

/** One block of the prompt, in cache order. */
export interface PromptSegment {
  /** Where the block sits. */
  section: 'tools' | 'system' | 'messages'
  /** Its tokens under the token rule (a message's framing counts on its first block). */
  tokens: number
  /** sha-256 of the namespace and every block up to and including this one. */
  prefixHash: string
  /** The TTL of its `cache_control`, when it is a breakpoint. */
  breakpoint: CacheTtl | undefined
}

/** The request as a list of prompt blocks with cumulative token counts. */
export interface PromptLayout {
  segments: PromptSegment[]
  /** `prefixTokens[i]`: tokens of blocks `0..i`. */
  prefixTokens: number[]
  /** All input tokens (= `count_tokens`). */
  total: number
  /** Indexes of the breakpoint blocks, ascending. */
  breakpoints: number[]
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The TTL a `cache_control` value asks for, or `undefined` when it is not a breakpoint. */
export function ttlOf(cacheControl: unknown): CacheTtl | undefined {
  if (!isRecord(cacheControl)) return undefined
  return cacheControl.ttl === '1h' ? '1h' : '5m'
}

/** A `tool_result` counts as a breakpoint when a block inside it carries `cache_control`. */
function blockBreakpoint(block: WireRequestBlock): CacheTtl | undefined {
  const own = ttlOf(block.cache_control)
  if (own || block.type !== 'tool_result' || !Array.isArray(block.content)) return own
  let found: CacheTtl | undefined
  for (const inner of block.content as unknown[]) {
    const t = isRecord(inner) ? ttlOf(inner.cache_control) : undefined
    if (t === '1h') return t
    found ??= t
  }
  return found
}

const UNCACHEABLE = new Set(['thinking', 'redacted_thinking'])

/**
 * Lays the request out in cache order. `namespace` (API key and model) seeds the hashes, so
 * equal prompts under different keys or models never share entries.
 *
 * Settings that the API says invalidate the message cache but not the tools/system cache
 * (`tool_choice`, `thinking`) are hashed into the first message block. A top-level
 * `cache_control` (automatic caching) adds a breakpoint on the last block that can be cached.
 */
export function promptLayout(
  request: WireMessagesRequest,
  merged: readonly WireRequestMessage[],
  namespace: string,
): PromptLayout {
  const segments: PromptSegment[] = []
  let hash = createHash('sha256').update(namespace).digest('hex')
  const push = (
    section: PromptSegment['section'],
    text: string,
    tokens: number,
    bp: CacheTtl | undefined,
  ) => {
    hash = createHash('sha256').update(hash).update(text).digest('hex')
    segments.push({ section, tokens, prefixHash: hash, breakpoint: bp })
  }
  for (const t of request.tools)
    push('tools', `T${toolText(t)}`, toolTokens(t), ttlOf(t.cache_control))
  for (const b of request.system)
    push('system', `S${blockText(b)}`, blockTokens(b), blockBreakpoint(b))
  const settings = JSON.stringify([request.raw.tool_choice ?? null, request.raw.thinking ?? null])
  let lastCacheable = -1
  merged.forEach((m, mi) => {
    const head = `${mi === 0 ? `C${settings}` : ''}M${m.role}`
    if (m.content.length === 0) push('messages', head, TOKENS_PER_MESSAGE, undefined)
    m.content.forEach((b, bi) => {
      const first = bi === 0
      push(
        'messages',
        `${first ? `${head}+` : '.'}${blockText(b)}`,
        blockTokens(b) + (first ? TOKENS_PER_MESSAGE : 0),
        UNCACHEABLE.has(b.type) ? undefined : blockBreakpoint(b),
      )
      if (!UNCACHEABLE.has(b.type)) lastCacheable = segments.length - 1
    })
  })
  const auto = ttlOf(request.raw.cache_control)
  if (auto && lastCacheable >= 0) {
    const s = segments[lastCacheable]!
    if (s.breakpoint === undefined || (auto === '1h' && s.breakpoint === '5m')) s.breakpoint = auto
  }
  const prefixTokens: number[] = []
  let sum = 0
  for (const s of segments) {
    sum += s.tokens
    prefixTokens.push(sum)
  }
  const breakpoints: number[] = []
  segments.forEach((s, i) => {
    if (s.breakpoint) breakpoints.push(i)
  })
  return { segments, prefixTokens, total: Math.max(1, sum), breakpoints }
}
