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
import type { ContextkitMiddlewareOptions } from './middleware.js'

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
