/**
 * The emulator's prompt cache: which prefixes earlier requests wrote, per API key and model,
 * and what each new request reads, writes and pays in full.
 *
 * It follows the Messages API's documented behaviour:
 * - The prompt is hashed in the order tools → system → messages; an entry covers everything up
 *   to and including a block that carries `cache_control` (a breakpoint). A top-level
 *   `cache_control` puts a breakpoint on the last cacheable block (automatic caching).
 * - A read needs a stored prefix that matches the request's byte for byte. For each breakpoint
 *   the lookup also tries the earlier block boundaries, up to `lookbackBlocks` (20) positions
 *   counting the breakpoint's own, and the longest live match wins. Entries are only ever
 *   written at breakpoints.
 * - A breakpoint whose prefix is shorter than the model's minimum cacheable length writes
 *   nothing (no error).
 * - Entries live 5 minutes (`ttl: '1h'`: one hour) and every read refreshes them.
 * - `input_tokens` counts only the tokens after the read prefix and the last written
 *   breakpoint: `input + cache_creation + cache_read` = `count_tokens` of the request.
 */
import { CACHE_TTL_MS, type CacheTtl, promptLayout } from './cache-prefix.js'
import { assertObject, EmulatorConfigError, invalidArgument } from './errors.js'
import type { WireMessagesRequest, WireRequestMessage } from './wire-types.js'

/** The minimum cacheable prefix of a model family (ids equal to `family` or starting `family-`). */
export interface MinCacheableEntry {
  /** A model-id prefix (`'claude-opus-4-7'` matches its dated ids). */
  family: string
  /** The fewest prompt tokens a cache breakpoint of that family can cover. */
  tokens: number
}

/**
 * Minimum cacheable prompt lengths, from the "Prompt caching" page of the Claude API docs as
 * quoted in anthropics/anthropic-sdk-python#1194 (2026), with Opus 4.7 from third-party
 * tables of the same page (they disagree: 4,096 or 2,048; 4,096 is used). Models not listed
 * get {@link DEFAULT_MIN_CACHEABLE_TOKENS}. Override with `CacheModelOptions.minTokens`.
 */
export const MIN_CACHEABLE_TOKENS: readonly MinCacheableEntry[] = Object.freeze([
  { family: 'claude-opus-4-7', tokens: 4096 },
  { family: 'claude-opus-4-6', tokens: 4096 },
  { family: 'claude-opus-4-5', tokens: 4096 },
  { family: 'claude-haiku-4-5', tokens: 4096 },
  { family: 'claude-sonnet-4-6', tokens: 1024 },
  { family: 'claude-sonnet-4-5', tokens: 1024 },
  { family: 'claude-opus-4-1', tokens: 1024 },
  { family: 'claude-opus-4', tokens: 1024 },
  { family: 'claude-sonnet-4', tokens: 1024 },
  { family: 'claude-3-7-sonnet', tokens: 1024 },
  { family: 'claude-3-5-haiku', tokens: 2048 },
  { family: 'claude-3-haiku', tokens: 2048 },
])

/** Minimum cacheable prefix of a model missing from {@link MIN_CACHEABLE_TOKENS}. */
export const DEFAULT_MIN_CACHEABLE_TOKENS = 1024

/** How far back from a breakpoint the lookup tries earlier block boundaries (the API's 20). */
export const CACHE_LOOKBACK_BLOCKS = 20

/** Options of the cache model (`startAnthropicEmulator({ cache })`). */
export interface CacheModelOptions {
  /** Model the cache at all. Default `true`; `false` reports every input token as uncached. */
  enabled?: boolean
  /** Milliseconds since the epoch, for TTLs. Default `Date.now`; inject one to test expiry. */
  clock?: () => number
  /**
   * Minimum cacheable prefix in tokens: one number for every model, or overrides per model id.
   * Default: {@link MIN_CACHEABLE_TOKENS} by model family.
   */
  minTokens?: number | Readonly<Record<string, number>>
  /** Block boundaries tried per breakpoint, its own included. Default {@link CACHE_LOOKBACK_BLOCKS} (20). */
  lookbackBlocks?: number
}

/** The cache part of a reply's `usage`, as the API reports it. */
export interface CacheUsage {
  /** Input tokens neither read from nor written to the cache. */
  input_tokens: number
  /** Input tokens written to the cache. */
  cache_creation_input_tokens: number
  /** Input tokens read from the cache. */
  cache_read_input_tokens: number
  /** Written tokens by TTL. */
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number }
}

/** What one `POST /v1/messages` request read and wrote. */
export interface CacheCall {
  /** The request's `request-id`. */
  requestId: string
  /** The model the request named. */
  model: string
  /** Clock time of the request. */
  at: number
  /** Uncached input tokens (summed over requests in the totals). */
  inputTokens: number
  /** Input tokens written to the cache (summed over requests in the totals). */
  cacheCreationInputTokens: number
  /** Input tokens read from the cache (summed over requests in the totals). */
  cacheReadInputTokens: number
  /** `input + creation + read` (= `count_tokens`). */
  totalInputTokens: number
}

/** Totals of `emu.cacheStats()`. */
export interface CacheStats {
  /** Whether the cache model is on. */
  enabled: boolean
  /** Messages requests answered (each also in `calls`). */
  requests: number
  /** Requests that read something from the cache. */
  hits: number
  /** Requests that wrote something to the cache. */
  writes: number
  /** Uncached input tokens (summed over requests in the totals). */
  inputTokens: number
  /** Input tokens written to the cache (summed over requests in the totals). */
  cacheCreationInputTokens: number
  /** Input tokens read from the cache (summed over requests in the totals). */
  cacheReadInputTokens: number
  /** `inputTokens + cacheCreationInputTokens + cacheReadInputTokens`, over every request. */
  totalInputTokens: number
  /** `cacheReadInputTokens / totalInputTokens` (0 with no requests). */
  hitRate: number
  /** Entries alive now. */
  entries: number
  /** Per request, in arrival order. */
  calls: CacheCall[]
}

interface Entry {
  expiresAt: number
  ttl: CacheTtl
}

function positiveInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1
}

/** A problem with cache options, or `undefined`. */
export function cacheOptionsProblem(options: unknown): string | undefined {
  if (options === undefined || options === false || options === true) return undefined
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    return '`cache` must be false or an options object'
  const o = options as Record<string, unknown>
  if (o.enabled !== undefined && typeof o.enabled !== 'boolean')
    return 'cache.enabled must be a boolean'
  if (o.clock !== undefined && typeof o.clock !== 'function')
    return 'cache.clock must be a function returning milliseconds'
  if (o.lookbackBlocks !== undefined && !positiveInteger(o.lookbackBlocks))
    return 'cache.lookbackBlocks must be a positive integer'
  const min = o.minTokens
  if (min !== undefined && !positiveInteger(min)) {
    if (typeof min !== 'object' || min === null || Array.isArray(min))
      return 'cache.minTokens must be a positive integer or a record of them by model id'
    for (const [id, n] of Object.entries(min)) {
      if (!positiveInteger(n)) return `cache.minTokens.${id} must be a positive integer`
    }
  }
  return undefined
}

/** The minimum cacheable prefix of `model` (family table, then overrides). */
export function minCacheableTokens(
  model: string,
  overrides?: CacheModelOptions['minTokens'],
): number {
  if (typeof model !== 'string') invalidArgument('minCacheableTokens', 'model', 'a string', model)
  if (overrides !== undefined && typeof overrides !== 'number') {
    assertObject(overrides, 'minCacheableTokens', 'overrides')
  }
  if (typeof overrides === 'number') return overrides
  const own = overrides?.[model]
  if (own !== undefined) return own
  let best: MinCacheableEntry | undefined
  for (const e of MIN_CACHEABLE_TOKENS) {
    const hit = model === e.family || model.startsWith(`${e.family}-`)
    if (hit && (best === undefined || e.family.length > best.family.length)) best = e
  }
  return best?.tokens ?? DEFAULT_MIN_CACHEABLE_TOKENS
}

/** The API key of a request (`x-api-key`, else `Authorization: Bearer`), which scopes its entries. */
export function apiKeyOf(headers: Readonly<Record<string, string>>): string {
  return headers['x-api-key'] || /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1] || ''
}

/** The emulator's prompt cache. One per emulator; see the module doc for the rules. */
export class PromptCache {
  private readonly entries = new Map<string, Entry>()
  private readonly calls: CacheCall[] = []
  private readonly clock: () => number
  readonly enabled: boolean
  private readonly lookback: number

  private readonly options: CacheModelOptions

  /** @throws EmulatorConfigError for invalid options. */
  constructor(options: CacheModelOptions = {}) {
    const problem = cacheOptionsProblem(options)
    if (problem) throw new EmulatorConfigError(problem)
    // `true` (from untyped callers) means the defaults.
    this.options = typeof options === 'object' ? options : {}
    options = this.options
    this.enabled = options.enabled ?? true
    this.clock = options.clock ?? Date.now
    this.lookback = options.lookbackBlocks ?? CACHE_LOOKBACK_BLOCKS
  }

  private now(): number {
    const t = this.clock()
    if (typeof t !== 'number' || !Number.isFinite(t))
      throw new EmulatorConfigError('cache.clock must return a finite number of milliseconds')
    return t
  }

  private live(key: string, now: number): Entry | undefined {
    const e = this.entries.get(key)
    if (e === undefined) return undefined
    if (e.expiresAt > now) return e
    this.entries.delete(key)
    return undefined
  }

  /**
   * Reads and writes the cache for one request and returns the usage figures the API would
   * report. `apiKey` and the model id scope the entries.
   */
  account(
    request: WireMessagesRequest,
    merged: readonly WireRequestMessage[],
    apiKey: string,
    requestId: string,
  ): CacheUsage {
    const layout = promptLayout(request, merged, `${apiKey}\u0000${request.model}`)
    const usage: CacheUsage = {
      input_tokens: layout.total,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    }
    const now = this.now()
    if (this.enabled && layout.breakpoints.length > 0) {
      const { segments, prefixTokens } = layout
      // Longest live prefix any breakpoint's lookback window finds.
      let read = -1
      for (const b of layout.breakpoints) {
        for (let p = b; p >= 0 && p > b - this.lookback && p > read; p--) {
          if (this.live(segments[p]!.prefixHash, now)) {
            read = p
            break
          }
        }
      }
      if (read >= 0) {
        const e = this.entries.get(segments[read]!.prefixHash)!
        e.expiresAt = now + CACHE_TTL_MS[e.ttl]
        usage.cache_read_input_tokens = prefixTokens[read]!
      }
      const min = minCacheableTokens(request.model, this.options.minTokens)
      let from = read >= 0 ? prefixTokens[read]! : 0
      for (const b of layout.breakpoints) {
        const seg = segments[b]!
        if (b <= read) {
          const e = this.live(seg.prefixHash, now)
          if (e) e.expiresAt = now + CACHE_TTL_MS[e.ttl]
          continue
        }
        if (prefixTokens[b]! < min) continue
        const ttl = seg.breakpoint!
        this.entries.set(seg.prefixHash, { ttl, expiresAt: now + CACHE_TTL_MS[ttl] })
        const written = prefixTokens[b]! - from
        from = prefixTokens[b]!
        usage.cache_creation_input_tokens += written
        if (ttl === '1h') usage.cache_creation.ephemeral_1h_input_tokens += written
        else usage.cache_creation.ephemeral_5m_input_tokens += written
      }
      usage.input_tokens =
        layout.total - usage.cache_read_input_tokens - usage.cache_creation_input_tokens
    }
    this.calls.push({
      requestId,
      model: request.model,
      at: now,
      inputTokens: usage.input_tokens,
      cacheCreationInputTokens: usage.cache_creation_input_tokens,
      cacheReadInputTokens: usage.cache_read_input_tokens,
      totalInputTokens: layout.total,
    })
    return usage
  }

  /** Totals so far and the entries alive now. */
  stats(): CacheStats {
    const now = this.now()
    for (const key of [...this.entries.keys()]) this.live(key, now)
    const sum = (f: (c: CacheCall) => number) => this.calls.reduce((n, c) => n + f(c), 0)
    const total = sum((c) => c.totalInputTokens)
    const read = sum((c) => c.cacheReadInputTokens)
    return {
      enabled: this.enabled,
      requests: this.calls.length,
      hits: this.calls.filter((c) => c.cacheReadInputTokens > 0).length,
      writes: this.calls.filter((c) => c.cacheCreationInputTokens > 0).length,
      inputTokens: sum((c) => c.inputTokens),
      cacheCreationInputTokens: sum((c) => c.cacheCreationInputTokens),
      cacheReadInputTokens: read,
      totalInputTokens: total,
      hitRate: total === 0 ? 0 : read / total,
      entries: this.entries.size,
      calls: this.calls.map((c) => ({ ...c })),
    }
  }

  /** Forgets every entry and every recorded call. */
  clear(): void {
    this.entries.clear()
    this.calls.length = 0
  }
}
