/**
 * The models the emulator knows, and their `GET /v1/models` wire form.
 */
import { EmulatorConfigError } from './errors.js'
import {
  capabilitiesWire,
  EMULATOR_THINKING_MODES,
  type EmulatorThinkingMode,
} from './model-capabilities.js'

/** A model the emulator serves. */
export interface EmulatorModel {
  /** Model id, e.g. `claude-haiku-4-5`. */
  id: string
  /** Human-readable name. Default: derived from the id. */
  displayName?: string
  /**
   * Whether a trailing assistant message (prefill) is accepted. Default `true`, but `false` for
   * `thinkingMode: 'adaptive-always'` (where `true` is a config error). When `false`, a prefill
   * is answered with 400 "This model does not support assistant message prefill. …".
   */
  supportsPrefill?: boolean
  /**
   * How the model thinks; decides which `thinking.type` values it accepts and what
   * `capabilities.thinking` says. Default `'adaptive'` (accepts `adaptive`, `enabled` and
   * `disabled`).
   */
  thinkingMode?: EmulatorThinkingMode
  /** RFC 3339 release date. Default `'2025-01-01T00:00:00Z'`. */
  createdAt?: string
  /** Context window in tokens (`max_input_tokens`); longer prompts get 400 "prompt is too long". Default `200000`. */
  maxInputTokens?: number
  /** Largest `max_tokens`. Default `64000`; larger requests get a 400. */
  maxTokens?: number
  /** Shallow overrides of the `capabilities` object `GET /v1/models` answers. Default: none. */
  capabilities?: Record<string, unknown>
  /**
   * An OpenAI reasoning model (o-series, gpt-5 family) on `/v1/chat/completions`: `max_tokens`
   * is refused with OpenAI's 400 "Unsupported parameter" (`UNSUPPORTED_MAX_TOKENS_MESSAGE`), and
   * `max_completion_tokens` is taken. Default `false`.
   */
  reasoning?: boolean
}

/** A model with every default filled in. */
export type ResolvedModel = Required<EmulatorModel>

/** Release date sent for models whose date is not recorded (the API sends an epoch value then). */
const UNKNOWN_DATE = '1970-01-01T00:00:00Z'

const model = (
  id: string,
  maxInputTokens: number,
  maxTokens: number,
  thinkingMode: EmulatorThinkingMode,
  supportsPrefill: boolean,
  createdAt: string,
): EmulatorModel => ({ id, maxInputTokens, maxTokens, thinkingMode, supportsPrefill, createdAt })

/**
 * The default model list, newest first: the limits, thinking mode and prefill support of
 * `@contextkit/core`'s `BUILTIN_MODELS` (a test holds the two equal). Claude 4.6 and later reject
 * prefill (`supportsPrefill: false`), as the real API does.
 */
export const DEFAULT_MODELS: readonly EmulatorModel[] = Object.freeze([
  model('claude-fable-5-1', 1_000_000, 128_000, 'adaptive-always', false, UNKNOWN_DATE),
  model('claude-opus-5-5', 1_000_000, 128_000, 'adaptive', false, UNKNOWN_DATE),
  model('claude-sonnet-5-5', 1_000_000, 128_000, 'adaptive', false, UNKNOWN_DATE),
  model('claude-opus-5', 1_000_000, 128_000, 'adaptive', false, UNKNOWN_DATE),
  model('claude-sonnet-5', 1_000_000, 128_000, 'adaptive', false, UNKNOWN_DATE),
  model('claude-opus-4-7', 200_000, 128_000, 'adaptive', false, '2026-04-01T00:00:00Z'),
  model('claude-opus-4-6', 1_000_000, 128_000, 'adaptive', false, '2026-02-01T00:00:00Z'),
  model('claude-sonnet-4-6', 1_000_000, 128_000, 'adaptive', false, '2026-02-01T00:00:00Z'),
  model('claude-opus-4-5', 200_000, 64_000, 'extended', true, '2025-11-24T00:00:00Z'),
  model('claude-haiku-4-5', 200_000, 64_000, 'extended', true, '2025-10-15T00:00:00Z'),
  model('claude-sonnet-4-5', 200_000, 64_000, 'extended', true, '2025-09-29T00:00:00Z'),
  model('claude-sonnet-4-0', 200_000, 64_000, 'extended', true, '2025-05-22T00:00:00Z'),
  model('claude-3-5-haiku-latest', 200_000, 8_192, 'none', true, '2024-10-22T00:00:00Z'),
])

function displayNameOf(id: string): string {
  return id
    .split('-')
    .map((p) => (/^\d+$/.test(p) ? p : p.charAt(0).toUpperCase() + p.slice(1)))
    .join(' ')
    .replace(/(\d) (\d)/g, '$1.$2')
}

function configError(message: string, id: unknown): never {
  throw new EmulatorConfigError(message, { details: { id } })
}

/** Fills defaults and checks the list (non-empty ids, no duplicates, positive limits, known thinking modes). */
export function resolveModels(models: readonly EmulatorModel[]): Map<string, ResolvedModel> {
  if (!Array.isArray(models)) throw new EmulatorConfigError('`models` must be an array')
  const out = new Map<string, ResolvedModel>()
  for (const m of models) {
    if (typeof m?.id !== 'string' || m.id === '') {
      throw new EmulatorConfigError('every model needs a non-empty string id', {
        details: { model: m },
      })
    }
    if (out.has(m.id)) configError(`duplicate model id ${m.id}`, m.id)
    const thinkingMode = m.thinkingMode ?? 'adaptive'
    if (!EMULATOR_THINKING_MODES.includes(thinkingMode)) {
      configError(
        `model ${m.id}: thinkingMode must be one of ${EMULATOR_THINKING_MODES.join(', ')}`,
        m.id,
      )
    }
    const always = thinkingMode === 'adaptive-always'
    if (always && m.supportsPrefill === true) {
      configError(`model ${m.id}: a model whose thinking is always on cannot take a prefill`, m.id)
    }
    const capabilities = m.capabilities ?? {}
    if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
      configError(`model ${m.id}: capabilities must be an object`, m.id)
    }
    const resolved: ResolvedModel = {
      id: m.id,
      displayName: m.displayName ?? displayNameOf(m.id),
      supportsPrefill: m.supportsPrefill ?? !always,
      thinkingMode,
      createdAt: m.createdAt ?? '2025-01-01T00:00:00Z',
      maxInputTokens: m.maxInputTokens ?? 200_000,
      maxTokens: m.maxTokens ?? 64_000,
      capabilities,
      reasoning: m.reasoning ?? false,
    }
    if (typeof resolved.reasoning !== 'boolean') {
      configError(`model ${m.id}: reasoning must be a boolean`, m.id)
    }
    if (!(resolved.maxTokens > 0) || !(resolved.maxInputTokens > 0)) {
      configError(`model ${m.id}: limits must be positive`, m.id)
    }
    out.set(m.id, resolved)
  }
  return out
}

/** The model line (`opus`, `sonnet`, …) named in an id, or `null`. */
function lineOf(id: string): string | null {
  return /(?:^|-)(fable|mythos|opus|sonnet|haiku)(?:-|$)/.exec(id)?.[1] ?? null
}

/** The `GET /v1/models/{id}` body of one model. */
export function modelInfoWire(m: ResolvedModel): Record<string, unknown> {
  return {
    type: 'model',
    id: m.id,
    display_name: m.displayName,
    created_at: m.createdAt,
    lifecycle: 'active',
    deprecated_at: null,
    retires_at: null,
    line: lineOf(m.id),
    max_input_tokens: m.maxInputTokens,
    max_tokens: m.maxTokens,
    capabilities: { ...capabilitiesWire(m.thinkingMode), ...m.capabilities },
  }
}

/**
 * One page of `GET /v1/models`: `{ data, has_more, first_id, last_id }`, honouring `limit`
 * (default 20, 1–1000), `after_id` and `before_id` like the real endpoint.
 */
export function modelPage(
  models: readonly ResolvedModel[],
  query: URLSearchParams,
): Record<string, unknown> {
  const limitRaw = Number(query.get('limit') ?? 20)
  const limit = Number.isInteger(limitRaw) ? Math.min(Math.max(limitRaw, 1), 1000) : 20
  const after = query.get('after_id')
  const before = query.get('before_id')
  let page: ResolvedModel[]
  let hasMore: boolean
  if (before) {
    const end = models.findIndex((m) => m.id === before)
    const upto = Math.max(0, end)
    const start = Math.max(0, upto - limit)
    page = models.slice(start, upto)
    hasMore = start > 0
  } else {
    const at = after ? models.findIndex((m) => m.id === after) + 1 : 0
    const start = after && at === 0 ? models.length : at
    page = models.slice(start, start + limit)
    hasMore = start + limit < models.length
  }
  return {
    data: page.map(modelInfoWire),
    has_more: hasMore,
    first_id: page[0]?.id ?? null,
    last_id: page[page.length - 1]?.id ?? null,
  }
}
