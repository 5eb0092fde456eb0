// The names this package writes into a turn and a trace: pure constants, exported from the root
// entry (and from ./node beside the middleware), so trace readers in any runtime can use them.

/** Default key of `turn.vars` under which the middleware stores the `ContextMetadata`. */
export const CONTEXT_METADATA_VARS_KEY = 'contextMeta'

/** Trace stages the middleware records (`<package>:<event>`, like every contextkit package). */
export const CONTEXT_METADATA_TRACE_STAGES = Object.freeze({
  /** One analysis was turned into a hint: `{ format, chars, lines, recordCount, contextRef, ms }`. */
  analyzed: 'context-metadata:analyzed',
} as const)
