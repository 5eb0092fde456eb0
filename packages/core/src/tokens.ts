import { assertOptions, invalidArgument } from './errors.js'
import { estimateTokens } from './estimate.js'
import type { ModelInfo } from './models.js'

/** Counts tokens in text. Implementations must never throw, whatever the string. */
export interface TokenCounter {
  /** Identifies the counter and its settings, e.g. `estimate:claude-opus-4-6:x1.1`. */
  readonly id: string
  /** `estimate` for heuristics, `exact` for a real tokenizer or the provider's count endpoint. */
  readonly kind: 'estimate' | 'exact'
  /** Count the tokens of `text`. */
  count(text: string): number
}

/** Options of {@link createTokenCounter}. */
export interface TokenCounterOptions {
  /** Model whose `tokenizerFactor` scales the estimate. Default: none (factor 1). */
  model?: Pick<ModelInfo, 'id' | 'tokenizerFactor'>
  /** Extra margin over the estimate. Default `1.1` (10 % over). */
  safetyFactor?: number
}

/**
 * The default counter: the zero-dependency single-pass estimator, scaled by a safety factor and
 * the model's tokenizer factor, rounded up. Total on every string (special-token text, lone
 * surrogates, very large inputs).
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  assertOptions(options, 'createTokenCounter')
  const safety = finitePositive(options.safetyFactor, 1.1)
  const factor = safety * finitePositive(options.model?.tokenizerFactor, 1)
  const scope = options.model?.id ?? 'any'
  return {
    id: `estimate:${scope}:x${round3(factor)}`,
    kind: 'estimate',
    count(text: string): number {
      if (typeof text !== 'string' || text.length === 0) return 0
      return Math.ceil(estimateTokens(text) * factor)
    },
  }
}

/** A counter with no model factor and the default safety margin. */
export const defaultTokenCounter: TokenCounter = createTokenCounter()

/** A counter wrapped with a correction learnt from real usage (see {@link calibrate}). */
export interface CalibratedCounter extends TokenCounter {
  /** The counter being corrected. */
  readonly base: TokenCounter
  /** Multiplier applied to the base counter's result. */
  readonly correction: number
  /** How many observations shaped `correction` (capped, so it keeps adapting). */
  readonly samples: number
}

const MAX_SAMPLES = 20

/**
 * Learn from a real request: `estimated` is what `counter` said for the prompt, `actualInputTokens`
 * what the provider billed. Returns a new counter whose results move toward reality (a running
 * mean of the observed ratios over the last ~20 calls, each ratio clamped to 0.25–4).
 * Non-finite or non-positive inputs return `counter` unchanged. Keep one per model.
 */
export function calibrate(
  counter: TokenCounter,
  estimated: number,
  actualInputTokens: number,
): CalibratedCounter {
  assertTokenCounter(counter, 'calibrate', 'counter')
  const current = isCalibrated(counter) ? counter : wrap(counter, 1, 0)
  if (
    !(estimated > 0) ||
    !(actualInputTokens > 0) ||
    !Number.isFinite(estimated + actualInputTokens)
  ) {
    return current
  }
  const baseEstimate = estimated / current.correction
  const ratio = Math.min(4, Math.max(0.25, actualInputTokens / baseEstimate))
  const n = Math.min(current.samples, MAX_SAMPLES - 1)
  const correction = (current.correction * n + ratio) / (n + 1)
  return wrap(current.base, correction, current.samples + 1)
}

function wrap(base: TokenCounter, correction: number, samples: number): CalibratedCounter {
  return {
    id: `${base.id}~cal${round3(correction)}`,
    kind: base.kind,
    base,
    correction,
    samples,
    count(text: string): number {
      const raw = base.count(text)
      return raw === 0 ? 0 : Math.ceil(raw * correction)
    },
  }
}

/** Assert that `counter` is a {@link TokenCounter} (an object with a `count` method). */
function assertTokenCounter(counter: unknown, fn: string, param: string): void {
  if (typeof (counter as { count?: unknown } | null)?.count !== 'function') {
    invalidArgument(fn, param, 'a TokenCounter', counter)
  }
}

function isCalibrated(counter: TokenCounter): counter is CalibratedCounter {
  const c = counter as Partial<CalibratedCounter>
  return typeof c.correction === 'number' && typeof c.samples === 'number' && c.base !== undefined
}

function finitePositive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000
}
