/**
 * The models the emulator knows, and their `GET /v1/models` wire form.
 */
import { EmulatorConfigError } from './errors.js'

/** A model the emulator serves. */
export interface EmulatorModel {
  /** Model id, e.g. `claude-haiku-4-5`. */
  id: string
  /** Human-readable name. Default: derived from the id. */
  displayName?: string
  /**
   * Whether a trailing assistant message (prefill) is accepted. Default `true`. When `false`,
   * a prefill is answered with 400 "This model does not support assistant message prefill. …".
   */
  supportsPrefill?: boolean
  /** RFC 3339 release date. Default `'2025-01-01T00:00:00Z'`. */
  createdAt?: string
  /** Context window in tokens. Default `200000`. */
  maxInputTokens?: number
  /** Largest `max_tokens`. Default `64000`; larger requests get a 400. */
  maxTokens?: number
}

/** A model with every default filled in. */
export type ResolvedModel = Required<EmulatorModel>

/**
 * The default model list. Claude 4.6 and later reject prefill (`supportsPrefill: false`), as the
 * real API does.
 */
export const DEFAULT_MODELS: readonly EmulatorModel[] = Object.freeze([
  {
    id: 'claude-opus-4-7',
    supportsPrefill: false,
    maxTokens: 128_000,
    createdAt: '2026-04-01T00:00:00Z',
  },
  {
    id: 'claude-opus-4-6',
    supportsPrefill: false,
    maxTokens: 128_000,
    createdAt: '2026-02-01T00:00:00Z',
  },
  {
    id: 'claude-sonnet-4-6',
    supportsPrefill: false,
    maxTokens: 64_000,
    createdAt: '2026-02-01T00:00:00Z',
  },
  {
    id: 'claude-opus-4-5',
    supportsPrefill: true,
    maxTokens: 64_000,
    createdAt: '2025-11-24T00:00:00Z',
  },
  {
    id: 'claude-sonnet-4-5',
    supportsPrefill: true,
    maxTokens: 64_000,
    createdAt: '2025-09-29T00:00:00Z',
  },
  {
    id: 'claude-haiku-4-5',
    supportsPrefill: true,
    maxTokens: 64_000,
    createdAt: '2025-10-15T00:00:00Z',
  },
  {
    id: 'claude-sonnet-4-0',
    supportsPrefill: true,
    maxTokens: 64_000,
    createdAt: '2025-05-22T00:00:00Z',
  },
  {
    id: 'claude-3-5-haiku-latest',
    supportsPrefill: true,
    maxTokens: 8_192,
    createdAt: '2024-10-22T00:00:00Z',
  },
])

function displayNameOf(id: string): string {
  return id
    .split('-')
    .map((p) => (/^\d+$/.test(p) ? p : p.charAt(0).toUpperCase() + p.slice(1)))
    .join(' ')
    .replace(/(\d) (\d)/g, '$1.$2')
}

/** Fills defaults and checks the list (non-empty ids, no duplicates, positive limits). */
export function resolveModels(models: readonly EmulatorModel[]): Map<string, ResolvedModel> {
  const out = new Map<string, ResolvedModel>()
  for (const m of models) {
    if (typeof m?.id !== 'string' || m.id === '') {
      throw new EmulatorConfigError('every model needs a non-empty string id', {
        details: { model: m },
      })
    }
    if (out.has(m.id))
      throw new EmulatorConfigError(`duplicate model id ${m.id}`, { details: { id: m.id } })
    const resolved: ResolvedModel = {
      id: m.id,
      displayName: m.displayName ?? displayNameOf(m.id),
      supportsPrefill: m.supportsPrefill ?? true,
      createdAt: m.createdAt ?? '2025-01-01T00:00:00Z',
      maxInputTokens: m.maxInputTokens ?? 200_000,
      maxTokens: m.maxTokens ?? 64_000,
    }
    if (!(resolved.maxTokens > 0) || !(resolved.maxInputTokens > 0)) {
      throw new EmulatorConfigError(`model ${m.id}: limits must be positive`, {
        details: { id: m.id },
      })
    }
    out.set(m.id, resolved)
  }
  return out
}

/** The `GET /v1/models/{id}` body of one model. */
export function modelInfoWire(m: ResolvedModel): Record<string, unknown> {
  return {
    type: 'model',
    id: m.id,
    display_name: m.displayName,
    created_at: m.createdAt,
    max_input_tokens: m.maxInputTokens,
    max_tokens: m.maxTokens,
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
