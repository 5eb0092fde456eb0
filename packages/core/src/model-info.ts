import * as z from 'zod'
import { THINKING_MODES, type ThinkingMode } from './model-checks.js'

export type { ThinkingMode } from './model-checks.js'

/**
 * Prices in US dollars per million tokens, with where and when they were read. `cacheWrite` is the
 * 5-minute cache write (the loop's breakpoints use the 5-minute cache); a price not published is
 * left out, and a cost that needs it is unknown, never guessed.
 */
export const ModelPricingSchema = z.strictObject({
  /** Uncached input tokens. */
  input: z.number().nonnegative(),
  /** Output tokens (thinking included). */
  output: z.number().nonnegative(),
  /** Tokens written to the prompt cache (5-minute TTL). */
  cacheWrite: z.number().nonnegative().optional(),
  /** Tokens read from the prompt cache. */
  cacheRead: z.number().nonnegative().optional(),
  /** Where the figures come from (a URL). */
  source: z.string().min(1),
  /** When they were read (YYYY-MM-DD). */
  asOf: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD'),
})

/** Prices of a model: see {@link ModelPricingSchema}. */
export type ModelPricing = z.infer<typeof ModelPricingSchema>

const entryShape = {
  /** Family label, e.g. `fable`, `opus`, `sonnet`, `haiku`, or `unknown`. */
  family: z.string(),
  /** Context window in tokens: the most a request may hold (the Models API's `max_input_tokens`). */
  contextWindow: z.number().int().positive(),
  /** Largest `max_tokens` the model accepts (the Models API's `max_tokens`). */
  maxOutput: z.number().int().positive(),
  /** Whether a trailing assistant message (prefill) is accepted. Always `false` for `adaptive-always`. */
  supportsPrefill: z.boolean(),
  /** Whether the model can think at all: `thinkingMode !== 'none'`. */
  supportsThinking: z.boolean(),
  /** How the model thinks (see {@link THINKING_MODES}). */
  thinkingMode: z.enum(THINKING_MODES),
  /** How many more tokens this model's tokenizer counts than the estimator's baseline (≥ 1). */
  tokenizerFactor: z.number().positive(),
  /** Prices per million tokens, where known (the Claude lineup); `undefined` means unknown. */
  pricing: ModelPricingSchema.optional(),
  /**
   * The field an OpenAI-compatible chat API takes the reply size in: OpenAI's reasoning models
   * (o-series, gpt-5 family) take `max_completion_tokens` and refuse `max_tokens`. Absent: the
   * provider decides (`openAIChatProvider`: `max_completion_tokens` for ids of those families).
   */
  maxTokensParam: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
}

type Consistent = {
  supportsPrefill: boolean
  supportsThinking: boolean
  thinkingMode: ThinkingMode
}

function checkConsistent(value: Consistent, ctx: z.RefinementCtx): void {
  if (value.supportsThinking !== (value.thinkingMode !== 'none')) {
    ctx.addIssue({
      code: 'custom',
      path: ['supportsThinking'],
      message: `must be ${value.thinkingMode !== 'none'} when thinkingMode is '${value.thinkingMode}'`,
    })
  }
  if (value.thinkingMode === 'adaptive-always' && value.supportsPrefill) {
    ctx.addIssue({
      code: 'custom',
      path: ['supportsPrefill'],
      message: 'a model whose thinking is always on cannot take a prefill',
    })
  }
}

/** Schema of a table entry (every {@link ModelInfo} field but `id`, `known` and `warning`). */
export const ModelEntrySchema = z.object(entryShape).superRefine(checkConsistent)

/** Schema of {@link ModelInfo}. */
export const ModelInfoSchema = z
  .object({
    /** The id as given by the caller. */
    id: z.string(),
    ...entryShape,
    /** `false` when the id matched no table entry and the limits are a guess (see `warning`). */
    known: z.boolean(),
    /** Set when `known` is false: what was guessed and from which entry. */
    warning: z.string().optional(),
  })
  .superRefine(checkConsistent)

/** What contextkit needs to know about a model. */
export type ModelInfo = z.infer<typeof ModelInfoSchema>

/** A table entry: every field but `id`, `known` and `warning`. */
export type ModelEntry = z.infer<typeof ModelEntrySchema>
