import { getModelInfo, type Message, type ModelInfo, ModelInfoCheck } from '@contextkit/core'
import * as c from '@contextkit/core/check'
import { DEFAULT_TOOL_RESULT_SHARE } from '../budget/tool-result-clip.js'

/** What a summarizer is given (see the `summarize` option of {@link CompactionOptions}). */
export interface SummarizeInput {
  /** The messages the summary replaces, oldest first (the first may be an earlier summary). */
  messages: readonly Message[]
  /** The earlier summary among `messages`, when the history was compacted before. */
  previousSummary?: string
  /** `messages` serialized as plain text (`serializeConversation`), each line tagged by role. */
  conversation: string
  /** The most tokens the summary should take. */
  maxTokens: number
  /** Fires when the run is aborted. */
  signal: AbortSignal
}

/** A summarizer of your own: the summary text for the messages it is given. */
export type Summarizer = (input: SummarizeInput) => Promise<string>

/** Default share of the context window at which the history is compacted before a call. */
export const DEFAULT_COMPACTION_AT = 0.8
/** Default tokens of the newest messages kept as they are (clamped: see {@link CompactionOptions}). */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000
/**
 * The least share of the context window a compaction must free. One that frees less turns
 * threshold compaction off for the rest of the run (a warning says so), so it is never repeated.
 */
export const MIN_COMPACTION_GAIN = 0.1

/** The check of the `compaction` option of `runAgent` (strict, like every option; no zod). */
export const CompactionOptionsCheck = /* @__PURE__ */ c.lazy(() =>
  c.union(
    c.literal(false),
    c.strictObject({
      /** Share of the context window the request's estimate must pass to compact. Default `0.8`. */
      at: c.optional(c.number({ above: 0, max: 1 })),
      /**
       * Tokens of the newest messages kept as they are. Default `20000`, clamped to a quarter of
       * `at` × the window, so each compaction frees at least three quarters of the threshold.
       */
      keepRecentTokens: c.optional(c.number({ int: true, min: 0 })),
      /** `'model'` (default): the run's provider writes the summary; or your own function. */
      summarize: c.optional(
        c.union(
          c.literal('model'),
          c.custom<Summarizer>((v) => typeof v === 'function', 'a function', ['function']),
        ),
      ),
      /** The model that writes the summary (same provider). Default: the run's model. */
      model: c.optional(c.union(c.string({ min: 1 }), ModelInfoCheck)),
      /** Compactions one step may make (threshold and overflow together). Default `1`. */
      maxAttemptsPerStep: c.optional(c.number({ int: true, min: 1 })),
    }),
  ),
)

/** Options of compaction: `false` turns it off. See {@link CompactionOptionsCheck}. */
export type CompactionOptions = c.Infer<typeof CompactionOptionsCheck>

/** Compaction options with every default resolved. */
export interface ResolvedCompaction {
  at: number
  keepRecentTokens: number
  summarize: 'model' | Summarizer
  model: ModelInfo
  maxAttemptsPerStep: number
}

/**
 * Resolve `compaction` against the run's model: `undefined` when off (`false`, or not given for a
 * run without a session).
 */
export function resolveCompaction(
  options: CompactionOptions | undefined,
  model: ModelInfo,
  hasSession: boolean,
): ResolvedCompaction | undefined {
  if (options === false || (options === undefined && !hasSession)) return undefined
  const o = options ?? {}
  const at = o.at ?? DEFAULT_COMPACTION_AT
  const clamp = Math.floor((at * model.contextWindow) / 4)
  return {
    at,
    keepRecentTokens: Math.min(o.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS, clamp),
    summarize: o.summarize ?? 'model',
    model:
      o.model === undefined
        ? model
        : typeof o.model === 'string'
          ? getModelInfo(o.model)
          : (o.model as ModelInfo),
    maxAttemptsPerStep: o.maxAttemptsPerStep ?? 1,
  }
}

/** The default `toolResultMaxTokens`: a quarter of the context window. */
export function defaultToolResultMaxTokens(model: ModelInfo): number {
  return Math.max(1, Math.floor(model.contextWindow * DEFAULT_TOOL_RESULT_SHARE))
}
