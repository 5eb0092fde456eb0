import { lazy, nullish, object, optional, strictObject } from './composite-checks.js'
import { invalidArgument, parseWith } from './errors.js'
import type { ModelInfo, ThinkingMode } from './model-info.js'
import { type ContextWindowSource, defaultModelRegistry, ModelRegistry } from './models.js'
import { boolean, custom, type Infer, number, string } from './value-checks.js'

/** The part of a Models API `capabilities` object that contextkit reads. Other keys are ignored. */
function capabilitiesCheck() {
  const support = object({ supported: boolean() })
  return object({
    thinking: nullish(
      object({
        supported: boolean(),
        types: nullish(
          object({
            adaptive: nullish(support),
            enabled: nullish(support),
            disabled: nullish(support),
          }),
        ),
      }),
    ),
  })
}

/** One model of a `GET /v1/models` response, as far as contextkit reads it. */
const ApiModelCheck = /* @__PURE__ */ lazy(() =>
  object({
    id: string({ min: 1 }),
    max_input_tokens: nullish(number({ int: true, min: 1 })),
    max_tokens: nullish(number({ int: true, min: 1 })),
    capabilities: nullish(capabilitiesCheck()),
    line: nullish(string({ min: 1 })),
  }),
)

/**
 * What {@link refreshModels} reads: a `GET /v1/models` page (`{ data: [...] }`, as the API and
 * the SDK's `client.models.list()` page answer it), several pages, or the models themselves.
 * Each model is `{ id, max_input_tokens?, max_tokens?, capabilities?, line?, … }`.
 */
export type ModelsListSource =
  | { readonly data: readonly unknown[] }
  | readonly { readonly data: readonly unknown[] }[]
  | readonly unknown[]

/** Options of {@link refreshModels}. */
export interface RefreshModelsOptions {
  /** The registry to update. Default: the process-wide one behind `getModelInfo`. */
  registry?: ModelRegistry
}

/** What {@link refreshModels} did. */
export interface RefreshModelsResult {
  /** Each registered model as `getModelInfo` now answers it (`known: true`), in source order. */
  registered: ModelInfo[]
  /** Models that were not registered, with the reason (a malformed entry never stops the rest). */
  skipped: { id: string | undefined; reason: string }[]
}

const OptionsCheck = /* @__PURE__ */ lazy(() =>
  strictObject({
    registry: optional(
      custom<ModelRegistry>((v) => ModelRegistry.isInstance(v), 'a ModelRegistry', ['object']),
    ),
  }),
)

/** The thinking mode a `capabilities.thinking` object describes; `fallback` when it says nothing. */
function thinkingModeOf(
  capabilities: Infer<ReturnType<typeof capabilitiesCheck>> | null | undefined,
  fallback: ThinkingMode,
): ThinkingMode {
  const thinking = capabilities?.thinking
  if (!thinking) return fallback
  if (!thinking.supported) return 'none'
  const types = thinking.types
  if (types?.adaptive?.supported) {
    // Thinking that cannot be turned off is always on.
    return types.disabled?.supported === false ? 'adaptive-always' : 'adaptive'
  }
  if (types?.enabled?.supported) return 'extended'
  // Supported, but no type we know of: keep what the table says, else the oldest kind.
  return fallback === 'none' ? 'extended' : fallback
}

function modelsOf(source: unknown): unknown[] {
  const isPage = (v: unknown): v is { data: unknown[] } =>
    typeof v === 'object' && v !== null && Array.isArray((v as { data?: unknown }).data)
  if (isPage(source)) return source.data
  if (Array.isArray(source)) return source.flatMap((item) => (isPage(item) ? item.data : [item]))
  return invalidArgument(
    'refreshModels',
    'source',
    'a GET /v1/models page ({ data: [...] }), a list of pages, or a list of models',
    source,
  )
}

/** The source of the window an id already has (a registration without a window keeps it). */
function keptSource(registry: ModelRegistry, id: string): Exclude<ContextWindowSource, 'learned'> {
  const source = registry.windowSource(id)
  return source === 'learned' ? 'table' : source
}

/**
 * Register what the Models API says about each model: `max_input_tokens` becomes
 * `contextWindow`, `max_tokens` becomes `maxOutput`, `capabilities.thinking` the `thinkingMode`
 * (adaptive that cannot be disabled is `adaptive-always`), `line` the `family`. Fields the API
 * leaves out (or `null`) keep the table's value for that id, or the guess for an id the table
 * lacks; prefill support is not in the API's answer, so it comes from the table (and is always off
 * for `adaptive-always`). Each id is registered exactly, so a new model is `known` without waiting
 * for a release; the static table stays the offline default.
 *
 * Pure data in: fetch the list yourself (or use `@contextkit/agent-loop/anthropic`). Throws a
 * `ValidationError` only when `source` or `options` is not of the accepted shape; a malformed
 * model is listed in `skipped` and the rest are registered.
 */
export function refreshModels(
  source: ModelsListSource,
  options: RefreshModelsOptions = {},
): RefreshModelsResult {
  const { registry = defaultModelRegistry() } = parseWith(
    OptionsCheck,
    options,
    'refreshModels options',
  )
  const result: RefreshModelsResult = { registered: [], skipped: [] }
  for (const raw of modelsOf(source)) {
    const parsed = ApiModelCheck.safeParse(raw)
    if (!parsed.success) {
      const id = (raw as { id?: unknown } | null)?.id
      const issue = parsed.error.issues[0]
      result.skipped.push({
        id: typeof id === 'string' ? id : undefined,
        reason: `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      })
      continue
    }
    const m = parsed.data
    const base = registry.get(m.id)
    const thinkingMode = thinkingModeOf(m.capabilities, base.thinkingMode)
    try {
      registry.register(
        m.id,
        {
          family: m.line ?? base.family,
          contextWindow: m.max_input_tokens ?? base.contextWindow,
          maxOutput: m.max_tokens ?? base.maxOutput,
          thinkingMode,
          supportsThinking: thinkingMode !== 'none',
          supportsPrefill: base.supportsPrefill && thinkingMode !== 'adaptive-always',
          tokenizerFactor: base.tokenizerFactor,
          // the Models API has no prices: a dated id keeps its family entry's (never a guessed one's)
          ...(base.known && base.pricing ? { pricing: base.pricing } : {}),
        },
        m.max_input_tokens == null ? keptSource(registry, m.id) : 'models-api',
      )
      result.registered.push(registry.get(m.id))
    } catch (error) {
      result.skipped.push({ id: m.id, reason: error instanceof Error ? error.message : 'invalid' })
    }
  }
  return result
}
