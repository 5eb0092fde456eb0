import * as zm from 'zod/mini'
import { parseWith } from './errors.js'
import type { ModelEntry, ModelInfo } from './model-info.js'

// The model registry checks its entries with these zod/mini schemas rather than the classic
// `ModelEntrySchema`/`ModelInfoSchema` (model-info.ts), so a bundle using `getModelInfo` does not
// carry classic zod. `model-checks.test.ts` holds them to the classic schemas with fast-check:
// the same values accepted, the same output, the same first issue.

/**
 * How a model thinks: `none` (no thinking), `extended` (thinking with a caller-set
 * `budget_tokens`), `adaptive` (the model decides whether and how much to think; can be turned
 * off), `adaptive-always` (adaptive thinking that is always on — such a model never takes an
 * assistant prefill).
 */
export const THINKING_MODES = ['none', 'extended', 'adaptive', 'adaptive-always'] as const

/** One of {@link THINKING_MODES}. */
export type ThinkingMode = (typeof THINKING_MODES)[number]

const count = () => zm.number().check(zm.nonnegative())

const PricingCheck = zm.strictObject({
  input: count(),
  output: count(),
  cacheWrite: zm.optional(count()),
  cacheRead: zm.optional(count()),
  source: zm.string().check(zm.minLength(1)),
  asOf: zm.string().check(zm.regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')),
})

const entryShape = {
  family: zm.string(),
  contextWindow: zm.int().check(zm.positive()),
  maxOutput: zm.int().check(zm.positive()),
  supportsPrefill: zm.boolean(),
  supportsThinking: zm.boolean(),
  thinkingMode: zm.enum(THINKING_MODES),
  tokenizerFactor: zm.number().check(zm.positive()),
  pricing: zm.optional(PricingCheck),
}

type Consistent = Pick<ModelEntry, 'supportsPrefill' | 'supportsThinking' | 'thinkingMode'>

// `zm.check` rather than `zm.superRefine`, which zod/mini gained after 4.0 (the lowest zod the
// packages support): the issues are pushed onto the payload as `superRefine` would add them.
const consistent = zm.check<Consistent>((payload) => {
  const value = payload.value
  if (value.supportsThinking !== (value.thinkingMode !== 'none')) {
    payload.issues.push({
      code: 'custom',
      input: value,
      path: ['supportsThinking'],
      message: `must be ${value.thinkingMode !== 'none'} when thinkingMode is '${value.thinkingMode}'`,
    })
  }
  if (value.thinkingMode === 'adaptive-always' && value.supportsPrefill) {
    payload.issues.push({
      code: 'custom',
      input: value,
      path: ['supportsPrefill'],
      message: 'a model whose thinking is always on cannot take a prefill',
    })
  }
})

/** `ModelEntrySchema` in zod/mini. */
export const ModelEntryCheck = zm.object(entryShape).check(consistent)

/** `ModelInfoSchema` in zod/mini. */
export const ModelInfoCheck = zm
  .object({
    id: zm.string(),
    ...entryShape,
    known: zm.boolean(),
    warning: zm.optional(zm.string()),
  })
  .check(consistent)

const PatchCheck = zm.record(zm.string(), zm.unknown())

/**
 * Whether `value` is a valid {@link ModelInfo} (what `ModelInfoSchema` accepts), checked without
 * classic zod.
 */
export function isModelInfo(value: unknown): value is ModelInfo {
  return ModelInfoCheck.safeParse(value).success
}

/**
 * `patch` applied over `base`, with the fields that must agree derived from what the patch sets:
 * `supportsThinking` alone picks a thinking mode (`extended` when the base had none), a
 * `thinkingMode` alone sets `supportsThinking`, and `adaptive-always` turns prefill off unless the
 * patch sets `supportsPrefill` itself (then validation rejects the contradiction).
 * Throws a `ValidationError` naming `what` when the result is not a valid entry.
 */
export function mergeEntry(base: ModelEntry, patch: unknown, what: string): ModelEntry {
  const p = parseWith(PatchCheck, patch, what) as Partial<Record<keyof ModelEntry, unknown>>
  const merged: Record<string, unknown> = { ...base, ...p }
  if (p.thinkingMode === undefined && typeof p.supportsThinking === 'boolean') {
    merged.thinkingMode = p.supportsThinking
      ? base.thinkingMode === 'none'
        ? 'extended'
        : base.thinkingMode
      : 'none'
  }
  if (p.supportsThinking === undefined && typeof p.thinkingMode === 'string') {
    merged.supportsThinking = p.thinkingMode !== 'none'
  }
  if (merged.thinkingMode === 'adaptive-always' && p.supportsPrefill === undefined) {
    merged.supportsPrefill = false
  }
  return parseWith(ModelEntryCheck, merged, what) as ModelEntry
}
