import {
  type ContextMiddleware,
  invalidArgument,
  isModelInfo,
  type ModelInfo,
  type TokenCounter,
  type Trace,
} from '@contextkit/core'
import { CACHE_MODES, type CacheMode } from '@contextkit/core/cache'
import { isRecord } from './is-record.js'

/** Options of `contextkitMiddleware`. */
export interface ContextkitMiddlewareOptions {
  /** The contextkit middleware, `prepare` in order, `finalize` in reverse (as in `runAgent`). */
  middleware: readonly ContextMiddleware[]
  /** The model's id (core's table) or a core `ModelInfo`. Default: the wrapped model's `modelId` looked up in core's table. */
  model?: string | ModelInfo
  /** The workspace directory (`RunInfo.workspace`, read by prefill, preload, …). Default: none. */
  workspace?: string
  /** Token budget of the system and user sections. Default: the context window minus the reply (`maxOutputTokens`), the messages and the tools. */
  budgetTokens?: number
  /** Counter for budget fitting. Default: core's `createTokenCounter({ model })`. */
  tokenCounter?: TokenCounter
  /** Where the middleware record what happens. Default: none. */
  trace?: Trace
  /** Data for the middleware and tools (`turn.vars`, e.g. preload's `contexts`). Default `{}`. */
  vars?: Record<string, unknown>
  /**
   * Prompt-cache breakpoints. `'auto'`: each call marks, as `providerOptions.anthropic.cacheControl`,
   * the end of the stable system part, the newest message, the tool definitions when they reach
   * 1,024 tokens and the previous call's last message (the placement `runAgent` uses), in the
   * slots the caller's own markers leave (never more than four in all; the caller's are never
   * moved, changed or dropped). `'off'`: none of ours. Providers other than Anthropic ignore them.
   * Default `'auto'`.
   */
  cache?: CacheMode
}

const KNOWN = new Set([
  'middleware',
  'model',
  'workspace',
  'budgetTokens',
  'tokenCounter',
  'trace',
  'vars',
  'cache',
])

/** The checked options. */
export interface ParsedOptions {
  middleware: readonly ContextMiddleware[]
  model: string | ModelInfo | undefined
  workspace: string | undefined
  budgetTokens: number | undefined
  tokenCounter: TokenCounter | undefined
  trace: Trace | undefined
  vars: Record<string, unknown>
  cache: CacheMode
}

const FN = 'contextkitMiddleware'

/** `contextkitMiddleware`'s options checked, each bad one a `ValidationError` naming it; unknown keys too. */
export function parseOptions(options: ContextkitMiddlewareOptions): ParsedOptions {
  if (!isRecord(options)) invalidArgument(FN, 'options', 'an options object', options)
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key))
      invalidArgument(FN, `options.${key}`, `a known option (one of ${[...KNOWN].join(', ')})`)
  }
  const { middleware, model, workspace, budgetTokens, tokenCounter, trace, vars, cache } = options
  if (
    !Array.isArray(middleware) ||
    !middleware.every((m) => isRecord(m) && typeof m.name === 'string')
  ) {
    invalidArgument(FN, 'options.middleware', 'an array of ContextMiddleware', middleware)
  }
  if (model !== undefined && typeof model !== 'string' && !isModelInfo(model)) {
    invalidArgument(FN, 'options.model', 'a model id or a core ModelInfo', model)
  }
  if (workspace !== undefined && (typeof workspace !== 'string' || workspace === '')) {
    invalidArgument(FN, 'options.workspace', 'a directory path', workspace)
  }
  if (budgetTokens !== undefined && (!Number.isSafeInteger(budgetTokens) || budgetTokens < 0)) {
    invalidArgument(FN, 'options.budgetTokens', 'an integer ≥ 0', budgetTokens)
  }
  if (
    tokenCounter !== undefined &&
    typeof (tokenCounter as { count?: unknown })?.count !== 'function'
  ) {
    invalidArgument(FN, 'options.tokenCounter', 'a TokenCounter', tokenCounter)
  }
  if (trace !== undefined && typeof (trace as { record?: unknown })?.record !== 'function') {
    invalidArgument(FN, 'options.trace', 'a Trace', trace)
  }
  if (vars !== undefined && !isRecord(vars)) invalidArgument(FN, 'options.vars', 'an object', vars)
  if (cache !== undefined && !CACHE_MODES.includes(cache)) {
    invalidArgument(FN, 'options.cache', `one of ${CACHE_MODES.join(', ')}`, cache)
  }
  const parsed = { middleware, model, workspace, budgetTokens, tokenCounter, trace }
  return { ...parsed, vars: vars ?? {}, cache: cache ?? 'auto' }
}
