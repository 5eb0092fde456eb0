import { lazy, object, optional, record, refine, strictObject } from './composite-checks.js'
import { parseWith } from './errors.js'
import type { ModelEntry, ModelInfo } from './model-info.js'
import { boolean, type Check, literal, number, string, unknown } from './value-checks.js'

// The model registry checks its entries with these checks rather than the zod
// `ModelEntrySchema`/`ModelInfoSchema` (model-info.ts, in `@contextkit/core/schemas`), so that
// `getModelInfo` never loads zod. `model-checks.test.ts` holds them to the zod schemas with
// fast-check: the same values accepted, the same first issue path.

/**
 * How a model thinks: `none` (no thinking), `extended` (thinking with a caller-set
 * `budget_tokens`), `adaptive` (the model decides whether and how much to think; can be turned
 * off), `adaptive-always` (adaptive thinking that is always on — such a model never takes an
 * assistant prefill).
 */
export const THINKING_MODES = ['none', 'extended', 'adaptive', 'adaptive-always'] as const

/** One of {@link THINKING_MODES}. */
export type ThinkingMode = (typeof THINKING_MODES)[number]

/** The checks of an entry's fields (built on first use, see {@link ModelEntryCheck}). */
function entryShape() {
  const count = () => number({ min: 0 })
  const pricing = strictObject({
    input: count(),
    output: count(),
    cacheWrite: optional(count()),
    cacheRead: optional(count()),
    source: string({ min: 1 }),
    asOf: string({ pattern: { regex: /^\d{4}-\d{2}-\d{2}$/, message: 'a date as YYYY-MM-DD' } }),
  })
  return {
    family: string(),
    contextWindow: number({ int: true, min: 1 }),
    maxOutput: number({ int: true, min: 1 }),
    supportsPrefill: boolean(),
    supportsThinking: boolean(),
    thinkingMode: literal(...THINKING_MODES),
    tokenizerFactor: number({ above: 0 }),
    pricing: optional(pricing),
    maxTokensParam: optional(literal('max_tokens', 'max_completion_tokens')),
  }
}

/** The fields of an entry, in the order of `ModelEntrySchema`. */
const ENTRY_KEYS: ReadonlyArray<keyof ModelEntry> = [
  'family',
  'contextWindow',
  'maxOutput',
  'supportsPrefill',
  'supportsThinking',
  'thinkingMode',
  'tokenizerFactor',
  'pricing',
  'maxTokensParam',
]

type Consistent = Pick<ModelEntry, 'supportsPrefill' | 'supportsThinking' | 'thinkingMode'>

/** The problems of fields that must agree (what `ModelEntrySchema`'s refinement reports). */
function inconsistencies(value: Consistent): Array<{ path: string[]; message: string }> {
  const problems: Array<{ path: string[]; message: string }> = []
  if (value.supportsThinking !== (value.thinkingMode !== 'none')) {
    problems.push({
      path: ['supportsThinking'],
      message: `must be ${value.thinkingMode !== 'none'} when thinkingMode is '${value.thinkingMode}'`,
    })
  }
  if (value.thinkingMode === 'adaptive-always' && value.supportsPrefill) {
    problems.push({
      path: ['supportsPrefill'],
      message: 'a model whose thinking is always on cannot take a prefill',
    })
  }
  return problems
}

/** The check of a table entry (what `ModelEntrySchema` accepts), without zod. */
export const ModelEntryCheck: Check<ModelEntry> = /* @__PURE__ */ lazy(() =>
  refine(object(entryShape()) as Check<ModelEntry>, inconsistencies),
)

/**
 * The check of a {@link ModelInfo} (what `ModelInfoSchema` from `@contextkit/core/schemas`
 * accepts), without zod: `parseWith(ModelInfoCheck, value, 'model')` names every bad field.
 */
export const ModelInfoCheck: Check<ModelInfo> = /* @__PURE__ */ lazy(() =>
  refine(
    object({
      id: string(),
      ...entryShape(),
      known: boolean(),
      warning: optional(string()),
    }) as Check<ModelInfo>,
    inconsistencies,
  ),
)

const PatchCheck = /* @__PURE__ */ lazy(() => record(unknown()))

/**
 * Whether `value` is a valid {@link ModelInfo} (what `ModelInfoSchema` accepts), checked without
 * zod.
 */
export function isModelInfo(value: unknown): value is ModelInfo {
  return ModelInfoCheck.is(value)
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
  parseWith(ModelEntryCheck, merged, what)
  // only the entry's fields are kept (as the schema's parse would: an unknown key is dropped)
  const entry: Record<string, unknown> = {}
  for (const key of ENTRY_KEYS) if (merged[key] !== undefined) entry[key] = merged[key]
  return entry as ModelEntry
}
