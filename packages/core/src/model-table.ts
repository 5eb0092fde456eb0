import type { ModelEntry, ThinkingMode } from './model-info.js'

/**
 * The date the model pages behind {@link BUILTIN_MODELS} were read. The table is the offline
 * default; `refreshModels` registers what the Models API says at run time.
 */
export const BUILTIN_MODELS_AS_OF = '2026-11-22'

/** Defaults for ids that are not Claude ids and match nothing: small limits, no prefill, a pessimistic tokenizer. */
export const UNKNOWN_MODEL_DEFAULTS: ModelEntry = Object.freeze({
  family: 'unknown',
  contextWindow: 100_000,
  maxOutput: 4_096,
  supportsPrefill: false,
  supportsThinking: false,
  thinkingMode: 'none',
  tokenizerFactor: 1.35,
})

function entry(
  family: string,
  contextWindow: number,
  maxOutput: number,
  thinkingMode: ThinkingMode,
  supportsPrefill: boolean,
  tokenizerFactor = 1,
): ModelEntry {
  return Object.freeze({
    family,
    contextWindow,
    maxOutput,
    supportsPrefill: supportsPrefill && thinkingMode !== 'adaptive-always',
    supportsThinking: thinkingMode !== 'none',
    thinkingMode,
    tokenizerFactor,
  })
}

const M = 1_000_000
const K200 = 200_000

/**
 * Built-in capability table, matched by id prefix (longest wins), newest models first. Sources
 * and dates of each figure are listed in the README ("Models"). Claude 4.6 and later answer 400
 * to a trailing assistant message, so they have `supportsPrefill: false`.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelEntry>> = Object.freeze({
  // current lineup (model pages, 2026-11-22)
  'claude-fable-5-1': entry('fable', M, 128_000, 'adaptive-always', false, 1.35),
  'claude-opus-5-5': entry('opus', M, 128_000, 'adaptive', false, 1.35),
  'claude-sonnet-5-5': entry('sonnet', M, 128_000, 'adaptive', false, 1.35),
  'claude-haiku-4-5': entry('haiku', K200, 64_000, 'extended', true),
  // legacy, still served (model pages, 2026-11-22)
  'claude-opus-5': entry('opus', M, 128_000, 'adaptive', false, 1.35),
  'claude-sonnet-5': entry('sonnet', M, 128_000, 'adaptive', false, 1.35),
  'claude-opus-4-6': entry('opus', M, 128_000, 'adaptive', false),
  'claude-sonnet-4-6': entry('sonnet', M, 128_000, 'adaptive', false),
  // older: figures kept from the previous table (not on the 2026-11-22 pages)
  'claude-opus-4-7': entry('opus', K200, 128_000, 'adaptive', false, 1.35),
  'claude-opus-4-5': entry('opus', K200, 64_000, 'extended', true),
  'claude-sonnet-4-5': entry('sonnet', K200, 64_000, 'extended', true),
  'claude-opus-4-1': entry('opus', K200, 32_000, 'extended', true),
  'claude-opus-4': entry('opus', K200, 32_000, 'extended', true),
  'claude-opus-4-0': entry('opus', K200, 32_000, 'extended', true),
  'claude-sonnet-4': entry('sonnet', K200, 64_000, 'extended', true),
  'claude-sonnet-4-0': entry('sonnet', K200, 64_000, 'extended', true),
  'claude-3-7-sonnet': entry('sonnet', K200, 64_000, 'extended', true),
  'claude-3-5-sonnet': entry('sonnet', K200, 8_192, 'none', true),
  'claude-3-5-haiku': entry('haiku', K200, 8_192, 'none', true),
  'claude-3-opus': entry('opus', K200, 4_096, 'none', true),
  'claude-3-haiku': entry('haiku', K200, 4_096, 'none', true),
})
