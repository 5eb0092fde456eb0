import type Anthropic from '@anthropic-ai/sdk'
import {
  createTokenCounter,
  getModelInfo,
  type ModelInfo,
  parseWith,
  sha256Hex,
  type TokenCounter,
} from '@contextkit/core'
import { ModelInfoSchema } from '@contextkit/core/schemas'
import * as z from 'zod'
import type {
  AsyncTokenCounter,
  TokenCountPrepareInput,
  TokenCountPrepareResult,
} from '../provider/token-count.js'
import { PROVIDER_WARNINGS } from '../provider/warnings.js'
import { toProviderError } from './provider-errors.js'

/** Options of {@link anthropicTokenCounter}. */
export interface AnthropicTokenCounterOptions {
  /** An `@anthropic-ai/sdk` client: its `messages.countTokens` gives the exact counts. */
  client: Pick<Anthropic, 'messages'>
  /** The model whose tokenizer counts (an id, or a core `ModelInfo`). */
  model: string | ModelInfo
  /**
   * Exact counts are fetched only when the estimated total of a request's sections lands within
   * this fraction of the budget (`|estimate − budget| ≤ margin × budget`); further away the
   * estimate decides the same way the exact count would. Default `0.1`.
   */
  margin?: number
  /** What `count` answers for a text not yet counted exactly. Default: core `createTokenCounter({ model })`. */
  estimate?: TokenCounter
  /** Count requests in flight at once. Default `4`. */
  concurrency?: number
  /** Exact counts kept (oldest forgotten first). Default `10000`. */
  cacheSize?: number
}

/** The counter {@link anthropicTokenCounter} returns. */
export interface AnthropicTokenCounter extends AsyncTokenCounter {
  /** Always `'exact'`: the counts come from the API. */
  readonly kind: 'exact'
  /**
   * The exact count of `text`, fetched now unless cached; the estimate (and `exact: false`) when
   * the endpoint fails. Never rejects.
   */
  countExact(
    text: string,
    options?: { signal?: AbortSignal },
  ): Promise<{ tokens: number; exact: boolean; error?: string }>
  /** Exact counts cached now. */
  readonly cached: number
}

const OptionsSchema = z.strictObject({
  client: z.custom<Pick<Anthropic, 'messages'>>(
    (c) =>
      typeof c === 'object' &&
      c !== null &&
      typeof (c as { messages?: { countTokens?: unknown } }).messages?.countTokens === 'function',
    'expected an Anthropic client (with messages.countTokens)',
  ),
  model: z.union([z.string().min(1), ModelInfoSchema]),
  margin: z.number().min(0).max(10).optional(),
  estimate: z
    .custom<TokenCounter>(
      (c) => typeof (c as { count?: unknown } | null)?.count === 'function',
      'expected a TokenCounter',
    )
    .optional(),
  concurrency: z.number().int().positive().optional(),
  cacheSize: z.number().int().positive().optional(),
})

function digestOf(text: string): string {
  return sha256Hex(text)
}

/** A text the endpoint can count: the API refuses empty and whitespace-only text blocks. */
function countable(text: string): boolean {
  return text.trim() !== ''
}

/** Exact counts from `messages.countTokens`, cached by digest (oldest forgotten first). */
class ExactCounts {
  readonly #client: Pick<Anthropic, 'messages'>
  readonly #model: string
  readonly #cacheSize: number
  readonly #cache = new Map<string, number>()
  #overhead: Promise<number> | undefined
  /** Requests sent so far. */
  sent = 0

  constructor(client: Pick<Anthropic, 'messages'>, model: string, cacheSize: number) {
    this.#client = client
    this.#model = model
    this.#cacheSize = cacheSize
  }

  get size(): number {
    return this.#cache.size
  }

  get(text: string): number | undefined {
    return this.#cache.get(digestOf(text))
  }

  /** Count `text` now (minus the one-message overhead) and remember it. */
  async fetch(text: string, signal: AbortSignal | undefined): Promise<number> {
    const [base, total] = await Promise.all([
      this.#messageOverhead(signal),
      this.#request(text, signal),
    ])
    const tokens = Math.max(0, total - base)
    const key = digestOf(text)
    this.#cache.delete(key)
    this.#cache.set(key, tokens)
    if (this.#cache.size > this.#cacheSize)
      this.#cache.delete(this.#cache.keys().next().value as string)
    return tokens
  }

  async #request(text: string, signal: AbortSignal | undefined): Promise<number> {
    this.sent++
    const answer = await this.#client.messages.countTokens(
      { model: this.#model, messages: [{ role: 'user', content: [{ type: 'text', text }] }] },
      signal ? { signal } : undefined,
    )
    return answer.input_tokens
  }

  /** Tokens the API adds to a one-message request around its text (asked once). */
  #messageOverhead(signal: AbortSignal | undefined): Promise<number> {
    this.#overhead ??= this.#request('.', signal).then(
      (n) => Math.max(0, n - 1),
      (error: unknown) => {
        this.#overhead = undefined
        throw error
      },
    )
    return this.#overhead
  }
}

const describe = (error: unknown): string => toProviderError(error, { midStream: false }).message

/**
 * The pre-pass of one request: when the sections' estimated total is within `margin` of the
 * budget, fetch exact counts of the texts not yet known (`concurrency` at a time; the first
 * failure stops the rest and becomes a warning).
 */
async function prepareExact(
  exact: ExactCounts,
  count: (text: string) => number,
  input: TokenCountPrepareInput,
  settings: { margin: number; concurrency: number },
): Promise<TokenCountPrepareResult> {
  const total = (): number => input.texts.reduce((n, t) => n + count(t), 0)
  const before = total()
  const near = Math.abs(before - input.budget) <= settings.margin * Math.max(1, input.budget)
  const wanted = [...new Set([...input.texts, ...input.alternatives])].filter(
    (t) => countable(t) && exact.get(t) === undefined,
  )
  const result = {
    estimate: before,
    tokens: before,
    counted: [] as string[],
    requests: 0,
    warnings: [] as { code: string; message: string }[],
  }
  if (!near || wanted.length === 0) return { ...result, exact: wanted.length === 0 }
  const failures: string[] = []
  const sentBefore = exact.sent
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < wanted.length && failures.length === 0 && !input.signal?.aborted) {
      const text = wanted[next++]!
      const old = count(text)
      try {
        if ((await exact.fetch(text, input.signal)) !== old) result.counted.push(text)
      } catch (error) {
        failures.push(describe(error))
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(settings.concurrency, wanted.length) }, worker))
  if (failures.length > 0 && !input.signal?.aborted) {
    result.warnings.push({
      code: PROVIDER_WARNINGS.tokenCountFailed,
      message: `Exact token counting failed, so the estimate is used: ${failures[0]}`,
    })
  }
  const all = wanted.every((t) => exact.get(t) !== undefined)
  return { ...result, exact: all, tokens: total(), requests: exact.sent - sentBefore }
}

/**
 * An exact core `TokenCounter` for one Anthropic model, backed by `messages.countTokens`.
 *
 * Core's `count` is synchronous, so this is an `AsyncTokenCounter`: `count(text)` answers the
 * exact count when it has one (cached by the text's SHA-256 digest) and the estimate otherwise;
 * `runAgent` awaits `prepare` before fitting each request's sections, and `prepare` fetches exact
 * counts only when the sections' estimated total lands within `margin` of the budget — where an
 * estimate could keep or drop the wrong section. A text is counted as one user message; the
 * message overhead (counted once, with a one-character text) is subtracted. When the endpoint
 * fails, the estimate is used and `prepare` reports a `agent_loop_token_count_failed` warning
 * (`PROVIDER_WARNINGS.tokenCountFailed`; the loop turns it into a run warning); later calls try again.
 */
export function anthropicTokenCounter(
  options: AnthropicTokenCounterOptions,
): AnthropicTokenCounter {
  const parsed = parseWith(OptionsSchema, options, 'anthropicTokenCounter options')
  const model = typeof parsed.model === 'string' ? getModelInfo(parsed.model) : parsed.model
  const estimate = options.estimate ?? createTokenCounter({ model })
  const settings = { margin: parsed.margin ?? 0.1, concurrency: parsed.concurrency ?? 4 }
  const exact = new ExactCounts(options.client, model.id, parsed.cacheSize ?? 10_000)

  const count = (text: string): number => {
    if (typeof text !== 'string' || text === '') return 0
    try {
      return exact.get(text) ?? estimate.count(text)
    } catch {
      return 0
    }
  }

  return {
    id: `exact:anthropic:${model.id}`,
    kind: 'exact',
    count,
    get cached() {
      return exact.size
    },

    async countExact(text, opts = {}) {
      if (typeof text !== 'string' || !countable(text)) return { tokens: count(text), exact: true }
      const known = exact.get(text)
      if (known !== undefined) return { tokens: known, exact: true }
      try {
        return { tokens: await exact.fetch(text, opts.signal), exact: true }
      } catch (error) {
        return { tokens: estimate.count(text), exact: false, error: describe(error) }
      }
    },

    prepare: (input) => prepareExact(exact, count, input, settings),
  }
}
