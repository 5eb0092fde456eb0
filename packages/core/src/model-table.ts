import type { ModelEntry, ModelPricing, ThinkingMode } from './model-info.js'

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

/** Where the prices of {@link BUILTIN_MODELS} were read, and when. */
export const MODEL_PRICES_SOURCE = 'https://platform.claude.com/docs/en/about-claude/pricing'
/** The date the prices of {@link BUILTIN_MODELS} were read. */
export const MODEL_PRICES_AS_OF = '2026-11-24'

/** Prices in USD per million tokens: input, output, 5-minute cache write, cache read. */
function price(
  input: number,
  output: number,
  cacheWrite?: number,
  cacheRead?: number,
): ModelPricing {
  return Object.freeze({
    input,
    output,
    ...(cacheWrite === undefined ? {} : { cacheWrite }),
    ...(cacheRead === undefined ? {} : { cacheRead }),
    source: MODEL_PRICES_SOURCE,
    asOf: MODEL_PRICES_AS_OF,
  })
}

function entry(
  family: string,
  contextWindow: number,
  maxOutput: number,
  thinkingMode: ThinkingMode,
  supportsPrefill: boolean,
  tokenizerFactor = 1,
  pricing?: ModelPricing,
): ModelEntry {
  return Object.freeze({
    family,
    contextWindow,
    maxOutput,
    supportsPrefill: supportsPrefill && thinkingMode !== 'adaptive-always',
    supportsThinking: thinkingMode !== 'none',
    thinkingMode,
    tokenizerFactor,
    ...(pricing ? { pricing } : {}),
  })
}

// the price list (see MODEL_PRICES_SOURCE and the model pages it links); Opus 5.5's cache prices
// were not on the pages read, so they are left out rather than guessed
const FABLE_5_1 = price(10, 50, 12.5, 0.25)
const OPUS_5_5 = price(4, 20)
const SONNET_5_X = price(2, 10, 2.5, 0.2)
const OPUS_4_5_TO_5 = price(5, 25, 6.25, 0.5)
const SONNET_4_X = price(3, 15, 3.75, 0.3)
const HAIKU_4_5 = price(1, 5, 1.25, 0.1)
const OPUS_4_0_TO_4_1 = price(15, 75, 18.75, 1.5)
const HAIKU_3_5 = price(0.8, 4, 1, 0.08)
const HAIKU_3 = price(0.25, 1.25, 0.3, 0.03)

const M = 1_000_000
const K200 = 200_000

/**
 * Built-in capability table, matched by id prefix (longest wins), newest models first. Sources
 * and dates of each figure are listed in the README ("Models"). Claude 4.6 and later answer 400
 * to a trailing assistant message, so they have `supportsPrefill: false`.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelEntry>> = Object.freeze({
  // current lineup (model pages, 2026-11-22)
  'claude-fable-5-1': entry('fable', M, 128_000, 'adaptive-always', false, 1.35, FABLE_5_1),
  'claude-opus-5-5': entry('opus', M, 128_000, 'adaptive', false, 1.35, OPUS_5_5),
  'claude-sonnet-5-5': entry('sonnet', M, 128_000, 'adaptive', false, 1.35, SONNET_5_X),
  'claude-haiku-4-5': entry('haiku', K200, 64_000, 'extended', true, 1, HAIKU_4_5),
  // legacy, still served (model pages, 2026-11-22)
  'claude-opus-5': entry('opus', M, 128_000, 'adaptive', false, 1.35, OPUS_4_5_TO_5),
  'claude-sonnet-5': entry('sonnet', M, 128_000, 'adaptive', false, 1.35, SONNET_5_X),
  'claude-opus-4-6': entry('opus', M, 128_000, 'adaptive', false, 1, OPUS_4_5_TO_5),
  'claude-sonnet-4-6': entry('sonnet', M, 128_000, 'adaptive', false, 1, SONNET_4_X),
  // older: figures kept from the previous table (not on the 2026-11-22 pages)
  'claude-opus-4-7': entry('opus', K200, 128_000, 'adaptive', false, 1.35, OPUS_4_5_TO_5),
  'claude-opus-4-5': entry('opus', K200, 64_000, 'extended', true, 1, OPUS_4_5_TO_5),
  'claude-sonnet-4-5': entry('sonnet', K200, 64_000, 'extended', true, 1, SONNET_4_X),
  'claude-opus-4-1': entry('opus', K200, 32_000, 'extended', true, 1, OPUS_4_0_TO_4_1),
  'claude-opus-4': entry('opus', K200, 32_000, 'extended', true, 1, OPUS_4_0_TO_4_1),
  'claude-opus-4-0': entry('opus', K200, 32_000, 'extended', true, 1, OPUS_4_0_TO_4_1),
  'claude-sonnet-4': entry('sonnet', K200, 64_000, 'extended', true, 1, SONNET_4_X),
  'claude-sonnet-4-0': entry('sonnet', K200, 64_000, 'extended', true, 1, SONNET_4_X),
  'claude-3-7-sonnet': entry('sonnet', K200, 64_000, 'extended', true, 1, SONNET_4_X),
  'claude-3-5-sonnet': entry('sonnet', K200, 8_192, 'none', true, 1, SONNET_4_X),
  'claude-3-5-haiku': entry('haiku', K200, 8_192, 'none', true, 1, HAIKU_3_5),
  'claude-3-opus': entry('opus', K200, 4_096, 'none', true, 1, OPUS_4_0_TO_4_1),
  'claude-3-haiku': entry('haiku', K200, 4_096, 'none', true, 1, HAIKU_3),
})
