import * as z from 'zod'
import { parseWith } from './errors.js'

export const ModelInfoSchema = z.object({
  /** The id as given by the caller. */
  id: z.string(),
  /** Family label, e.g. `opus`, `sonnet`, `haiku`, or `unknown`. */
  family: z.string(),
  /** Input + output tokens the model accepts in one request. */
  contextWindow: z.number().int().positive(),
  /** Largest `max_tokens` the model accepts. */
  maxOutput: z.number().int().positive(),
  /** Whether a trailing assistant message (prefill) is accepted. */
  supportsPrefill: z.boolean(),
  /** Whether extended thinking is available. */
  supportsThinking: z.boolean(),
  /** How many more tokens this model's tokenizer counts than the estimator's baseline (≥ 1). */
  tokenizerFactor: z.number().positive(),
  /** `false` when the id matched no table entry and conservative defaults were used. */
  known: z.boolean(),
})
/** What contextkit needs to know about a model. */
export type ModelInfo = z.infer<typeof ModelInfoSchema>

/** A table entry: every field but `id` and `known`. */
export type ModelEntry = Omit<ModelInfo, 'id' | 'known'>

/** Defaults for ids that match nothing: small limits, no prefill, a pessimistic tokenizer. */
export const UNKNOWN_MODEL_DEFAULTS: ModelEntry = Object.freeze({
  family: 'unknown',
  contextWindow: 100_000,
  maxOutput: 4_096,
  supportsPrefill: false,
  supportsThinking: false,
  tokenizerFactor: 1.35,
})

const claude = (
  family: string,
  maxOutput: number,
  supportsPrefill: boolean,
  supportsThinking: boolean,
  tokenizerFactor = 1,
): ModelEntry => ({
  family,
  contextWindow: 200_000,
  maxOutput,
  supportsPrefill,
  supportsThinking,
  tokenizerFactor,
})

/**
 * Built-in capability table, matched by id prefix (longest wins). Claude 4.6 and later answer
 * 400 to a trailing assistant message, so they are marked `supportsPrefill: false`.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelEntry>> = Object.freeze({
  'claude-opus-4-7': claude('opus', 128_000, false, true, 1.35),
  'claude-opus-4-6': claude('opus', 128_000, false, true),
  'claude-sonnet-4-6': claude('sonnet', 64_000, false, true),
  'claude-opus-4-5': claude('opus', 64_000, true, true),
  'claude-sonnet-4-5': claude('sonnet', 64_000, true, true),
  'claude-haiku-4-5': claude('haiku', 64_000, true, true),
  'claude-opus-4-1': claude('opus', 32_000, true, true),
  'claude-opus-4': claude('opus', 32_000, true, true),
  'claude-sonnet-4': claude('sonnet', 64_000, true, true),
  'claude-3-7-sonnet': claude('sonnet', 64_000, true, true),
  'claude-3-5-sonnet': claude('sonnet', 8_192, true, false),
  'claude-3-5-haiku': claude('haiku', 8_192, true, false),
  'claude-3-opus': claude('opus', 4_096, true, false),
  'claude-3-haiku': claude('haiku', 4_096, true, false),
})

const CLOUD_PREFIX = /^(?:[a-z]{2,4}\.)?anthropic\./
const VERSIONED = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?=$|[-@:.])/

/** Normalize provider spellings (`us.anthropic.claude-…-v1:0`, `claude-…@2025…`) to a bare id. */
function normalizeId(id: string): string {
  return id.trim().toLowerCase().replace(CLOUD_PREFIX, '')
}

/**
 * A prefix matches at a boundary, and not when the rest starts with another short version number:
 * `claude-opus-4` matches `claude-opus-4-20250514` but not `claude-opus-4-8`.
 */
function prefixMatches(id: string, prefix: string): boolean {
  if (!id.startsWith(prefix)) return false
  const rest = id.slice(prefix.length)
  if (rest === '') return true
  if (!/^[-@:.]/.test(rest)) return false
  return !/^-\d{1,2}(?:$|[-@:.])/.test(rest)
}

/**
 * A registry of model capabilities. {@link getModelInfo} and {@link registerModel} use a default
 * instance; create your own when you want isolation (tests, multi-tenant servers).
 */
export class ModelRegistry {
  readonly #entries = new Map<string, ModelEntry>()

  constructor(entries: Readonly<Record<string, ModelEntry>> = BUILTIN_MODELS) {
    for (const [prefix, entry] of Object.entries(entries)) this.register(prefix, entry)
  }

  /** Add or replace the entry for an id prefix. Longer prefixes win over shorter ones. */
  register(prefix: string, entry: Partial<ModelEntry>): void {
    const key = normalizeId(prefix)
    const base = this.#entries.get(key) ?? UNKNOWN_MODEL_DEFAULTS
    const merged = { ...base, ...entry }
    parseWith(ModelInfoSchema.omit({ id: true, known: true }), merged, `model entry "${prefix}"`)
    this.#entries.set(key, merged)
  }

  /**
   * Capabilities of `id`: the longest matching prefix entry; else, for a versioned Claude id newer
   * than the table (`claude-opus-5`), a family guess with no prefill; else conservative defaults.
   * `overrides` are applied last.
   */
  get(id: string, overrides: Partial<ModelEntry> = {}): ModelInfo {
    const norm = normalizeId(id)
    let best: string | undefined
    for (const prefix of this.#entries.keys()) {
      if (prefixMatches(norm, prefix) && (best === undefined || prefix.length > best.length)) {
        best = prefix
      }
    }
    const base = best === undefined ? guessUnlisted(norm) : this.#entries.get(best)!
    const info = { ...base, ...overrides, id, known: best !== undefined }
    return parseWith(ModelInfoSchema, info, `model info for "${id}"`)
  }
}

function guessUnlisted(id: string): ModelEntry {
  const m = VERSIONED.exec(id)
  if (!m) return UNKNOWN_MODEL_DEFAULTS
  const family = m[1]!
  const version = Number(m[2]) + Number(m[3] ?? 0) / 100
  // Anything newer than the table is at least 4.6-era: no prefill, thinking available.
  return version >= 4.06
    ? {
        family,
        contextWindow: 200_000,
        maxOutput: 32_000,
        supportsPrefill: false,
        supportsThinking: true,
        tokenizerFactor: family === 'opus' ? 1.35 : 1.1,
      }
    : { ...UNKNOWN_MODEL_DEFAULTS, family }
}

const defaultRegistry = new ModelRegistry()

/**
 * Capabilities of a model id from the default registry (see {@link ModelRegistry.get}).
 *
 * @example getModelInfo('claude-sonnet-4-6').supportsPrefill // false
 */
export function getModelInfo(id: string, overrides?: Partial<ModelEntry>): ModelInfo {
  return defaultRegistry.get(id, overrides)
}

/** Add or override an entry of the default registry (process-wide). */
export function registerModel(prefix: string, entry: Partial<ModelEntry>): void {
  defaultRegistry.register(prefix, entry)
}
