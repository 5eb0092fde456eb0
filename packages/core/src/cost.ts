import type { ModelPricing } from './model-info.js'

/** The token counts a cost is computed from (core `Usage`, or any object with these fields). */
export interface CostUsage {
  /** Uncached input tokens. */
  input: number
  /** Output tokens. */
  output: number
  /** Input tokens read from the prompt cache. */
  cacheRead: number
  /** Input tokens written to the prompt cache. */
  cacheWrite: number
}

const PER_TOKEN = 1 / 1_000_000

/**
 * What `usage` cost in US dollars at `pricing` (a model's `pricing` from the table), or
 * `undefined` when it cannot be known: no pricing, a token kind used whose price is not published
 * (e.g. cache reads on a model without a cache-read price), or counts that are not finite numbers
 * ≥ 0. Never a guess. Cache writes are priced at the 5-minute rate.
 */
export function usageCostUsd(
  usage: CostUsage,
  pricing: ModelPricing | undefined,
): number | undefined {
  if (!pricing || typeof usage !== 'object' || usage === null) return undefined
  const counts = [usage.input, usage.output, usage.cacheRead, usage.cacheWrite]
  if (!counts.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)) return undefined
  if (usage.cacheRead > 0 && pricing.cacheRead === undefined) return undefined
  if (usage.cacheWrite > 0 && pricing.cacheWrite === undefined) return undefined
  const dollars =
    usage.input * pricing.input +
    usage.output * pricing.output +
    usage.cacheRead * (pricing.cacheRead ?? 0) +
    usage.cacheWrite * (pricing.cacheWrite ?? 0)
  return dollars * PER_TOKEN
}
