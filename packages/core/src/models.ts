import { assertObject, assertString, parseWith } from './errors.js'
import { ModelInfoCheck, mergeEntry } from './model-checks.js'
import type { ModelEntry, ModelInfo } from './model-info.js'
import { BUILTIN_MODELS, UNKNOWN_MODEL_DEFAULTS } from './model-table.js'

export type { ModelEntry, ModelInfo, ThinkingMode } from './model-info.js'

const CLOUD_PREFIX = /^(?:[a-z]{2,4}\.)?anthropic\./
/** `claude-opus-4-5…`, `claude-fable-5…` */
const NEW_STYLE = /^claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?=$|[-@:.])/
/** `claude-3-5-sonnet…` */
const OLD_STYLE = /^claude-(\d+)(?:-(\d{1,2}))?-([a-z]+)(?=$|[-@:.])/
/** Claude 4.6 and later reject an assistant prefill. */
const FIRST_NO_PREFILL_VERSION = 4.06

/** Normalize provider spellings (`us.anthropic.claude-…-v1:0`, `claude-…@2025…`) to a bare id. */
function normalizeId(id: string): string {
  return id.trim().toLowerCase().replace(CLOUD_PREFIX, '')
}

/** Family and version (`major + minor / 100`) of a Claude id, if it has them. */
function parseClaudeId(id: string): { family: string; version: number } | undefined {
  const m = NEW_STYLE.exec(id)
  if (m) return { family: m[1]!, version: Number(m[2]) + Number(m[3] ?? 0) / 100 }
  const old = OLD_STYLE.exec(id)
  if (old) return { family: old[3]!, version: Number(old[1]) + Number(old[2] ?? 0) / 100 }
  return undefined
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

/** The brand of {@link ModelRegistry} instances, the same symbol in every copy of core. */
const REGISTRY_BRAND = Symbol.for('@contextkit/core:ModelRegistry')

/**
 * Where a model's context window came from: `table` (the built-in table, or the entries a
 * registry was made with, and the guesses from them), `option` (given by the caller:
 * `registerModel`, `ModelRegistry.register`, or a `ModelInfo` of their own), `models-api`
 * (registered by `refreshModels` from the Models API), `learned` (stated by the server in an
 * overflow refusal; the agent loop learns it during a run).
 */
export type ContextWindowSource = 'table' | 'option' | 'models-api' | 'learned'

interface Guess {
  entry: ModelEntry
  warning: string
}

/**
 * A registry of model capabilities. {@link getModelInfo}, {@link registerModel} and
 * `refreshModels` use a default instance; create your own when you want isolation (tests,
 * multi-tenant servers).
 */
export class ModelRegistry {
  readonly #entries = new Map<string, ModelEntry>()
  /** Where each entry's context window came from (absent: `table`). */
  readonly #sources = new Map<string, ContextWindowSource>()

  /** Marks registries of every copy of core (see {@link ModelRegistry.isInstance}). */
  readonly [REGISTRY_BRAND] = true

  /**
   * Whether `value` is a registry made by any copy of `@contextkit/core`. Use it instead of
   * `instanceof`, which is false for a registry of another copy (two versions in one app).
   */
  static isInstance(value: unknown): value is ModelRegistry {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [REGISTRY_BRAND]?: unknown })[REGISTRY_BRAND] === true
    )
  }

  constructor(entries: Readonly<Record<string, Partial<ModelEntry>>> = BUILTIN_MODELS) {
    assertObject(entries, 'new ModelRegistry', 'entries')
    for (const [prefix, entry] of Object.entries(entries)) this.register(prefix, entry, 'table')
  }

  /**
   * Add or replace the entry for an id prefix; longer prefixes win over shorter ones. A partial
   * entry is completed from the current entry of that prefix, or from what {@link ModelRegistry.get} would
   * guess for it. `source` says where a `contextWindow` the entry sets came from (default
   * `option`; `refreshModels` passes `models-api`); an entry that sets none keeps the window's
   * source. Throws a `ValidationError` for an invalid entry.
   */
  register(
    prefix: string,
    entry: Partial<ModelEntry>,
    source: Exclude<ContextWindowSource, 'learned'> = 'option',
  ): void {
    assertString(prefix, 'ModelRegistry.register', 'prefix')
    const key = normalizeId(prefix)
    const base = this.#entries.get(key) ?? this.#guess(key, prefix).entry
    this.#entries.set(key, mergeEntry(base, entry, `model entry "${prefix}"`))
    const sets = (entry as { contextWindow?: unknown } | null)?.contextWindow !== undefined
    if (sets && source !== 'table') this.#sources.set(key, source)
    else if (sets) this.#sources.delete(key)
  }

  /**
   * Where the context window {@link ModelRegistry.get} gives for `id` came from: `table`,
   * `option` or `models-api` (see {@link ContextWindowSource}); `table` for a guess.
   */
  windowSource(id: string): ContextWindowSource {
    assertString(id, 'ModelRegistry.windowSource', 'id')
    const best = this.#match(normalizeId(id))
    return best === undefined ? 'table' : (this.#sources.get(best) ?? 'table')
  }

  /** Whether an entry matches `id` (so {@link ModelRegistry.get} answers `known: true`). */
  has(id: string): boolean {
    assertString(id, 'ModelRegistry.has', 'id')
    return this.#match(normalizeId(id)) !== undefined
  }

  /**
   * Capabilities of `id`: the longest matching prefix entry (`known: true`). Otherwise a guess
   * with `known: false` and a `warning` saying what it is based on: a Claude id of a known family
   * gets the limits of that family's closest version at or below it; a Claude id of an unknown
   * family (a new name) gets the limits of the newest known model; a guessed Claude id from 4.6 on
   * never takes a prefill; any other id gets {@link UNKNOWN_MODEL_DEFAULTS}. `overrides` are
   * applied last and validated.
   */
  get(id: string, overrides?: Partial<ModelEntry>): ModelInfo {
    assertString(id, 'getModelInfo', 'id')
    const norm = normalizeId(id)
    const best = this.#match(norm)
    const guess = best === undefined ? this.#guess(norm, id) : undefined
    const base = best === undefined ? guess!.entry : this.#entries.get(best)!
    const what = `model info for "${id}"`
    const entry = overrides === undefined ? base : mergeEntry(base, overrides, what)
    const info = {
      ...entry,
      id,
      known: best !== undefined,
      ...(guess && { warning: guess.warning }),
    }
    return parseWith(ModelInfoCheck, info, what) as ModelInfo
  }

  #match(norm: string): string | undefined {
    let best: string | undefined
    for (const prefix of this.#entries.keys()) {
      if (prefixMatches(norm, prefix) && (best === undefined || prefix.length > best.length)) {
        best = prefix
      }
    }
    return best
  }

  #guess(norm: string, id: string): Guess {
    if (!norm.startsWith('claude-')) {
      return {
        entry: UNKNOWN_MODEL_DEFAULTS,
        warning: `model "${id}" is not in the model table; using conservative defaults (${UNKNOWN_MODEL_DEFAULTS.contextWindow} context, ${UNKNOWN_MODEL_DEFAULTS.maxOutput} output tokens)`,
      }
    }
    const parsed = parseClaudeId(norm)
    const known: { prefix: string; entry: ModelEntry; family: string; version: number }[] = []
    for (const [prefix, entry] of this.#entries) {
      const p = parseClaudeId(prefix)
      if (p) known.push({ prefix, entry, ...p })
    }
    const newest = (list: typeof known) =>
      list.reduce((a, b) => (b.version > a.version ? b : a), list[0]!)
    const sameFamily = parsed ? known.filter((k) => k.family === parsed.family) : []
    let pick: (typeof known)[number] | undefined
    let warning: string
    if (parsed && sameFamily.length > 0) {
      const atOrBelow = sameFamily.filter((k) => k.version <= parsed.version)
      pick =
        atOrBelow.length > 0
          ? newest(atOrBelow)
          : sameFamily.reduce((a, b) => (b.version < a.version ? b : a))
      warning = `model "${id}" is not in the model table; using the limits of ${pick.prefix}, the closest ${parsed.family} model`
    } else if (known.length > 0) {
      pick = newest(known)
      warning = `model "${id}" is of a family not in the model table (${parsed?.family ?? 'unrecognized'}); using the limits of ${pick.prefix}, the newest known model`
    } else {
      return {
        entry: { ...UNKNOWN_MODEL_DEFAULTS, family: parsed?.family ?? 'unknown' },
        warning: `model "${id}" is not in the model table, which has no Claude models; using conservative defaults`,
      }
    }
    const noPrefill = (parsed?.version ?? Number.POSITIVE_INFINITY) >= FIRST_NO_PREFILL_VERSION
    // limits may be borrowed from a neighbour; prices never are (unknown, not guessed)
    const { pricing: _borrowed, ...limits } = pick.entry
    const entry: ModelEntry = {
      ...limits,
      family: parsed?.family ?? pick.entry.family,
      supportsPrefill: pick.entry.supportsPrefill && !noPrefill,
    }
    return { entry, warning }
  }
}

/** Where the default registry lives: one per process, shared by every copy of core. */
const DEFAULT_REGISTRY_KEY = Symbol.for('@contextkit/core:default-model-registry')

/**
 * @internal The registry behind {@link getModelInfo}, {@link registerModel} and `refreshModels`.
 * It is kept on `globalThis` under a `Symbol.for` key, so an app that ends up with two copies of
 * core still has one model table: a `registerModel` in one copy is seen by the other.
 */
export function defaultModelRegistry(): ModelRegistry {
  const holder = globalThis as { [DEFAULT_REGISTRY_KEY]?: unknown }
  const found = holder[DEFAULT_REGISTRY_KEY]
  if (ModelRegistry.isInstance(found)) return found
  const created = new ModelRegistry()
  holder[DEFAULT_REGISTRY_KEY] = created
  return created
}

/**
 * Capabilities of a model id from the default registry (see {@link ModelRegistry.get}).
 *
 * @example getModelInfo('claude-sonnet-4-6').supportsPrefill // false
 */
export function getModelInfo(id: string, overrides?: Partial<ModelEntry>): ModelInfo {
  return defaultModelRegistry().get(id, overrides)
}

/**
 * Where the default registry's context window for `id` came from (see
 * {@link ModelRegistry.windowSource}).
 */
export function contextWindowSource(id: string): ContextWindowSource {
  return defaultModelRegistry().windowSource(id)
}

/** Add or override an entry of the default registry (process-wide). */
export function registerModel(prefix: string, entry: Partial<ModelEntry>): void {
  defaultModelRegistry().register(prefix, entry)
}
