// The names this package writes into a turn and a trace: pure constants, exported from the root
// entry (and from ./node beside the middleware), so trace readers in any runtime can use them.

/** Key of `turn.vars` where the middleware lists the preloaded paths, for tools. */
export const PRELOAD_VARS_KEY = 'preloadedFiles'

/** Trace stages the middleware records (`preload:<event>`). */
export const PRELOAD_TRACE_STAGES = Object.freeze({
  /**
   * One per `prepare`:
   * `\{ bootstrap?: \{ loaded, missing, truncated, skipped \}, files?: \{ loaded, tokens, skipped \} \}`
   * (`skipped` entries are `\{ path, reason \}` with a refusal code).
   */
  loaded: 'preload:loaded',
} as const)

/**
 * The heading the preloaded files sit under (the seed's system prompt tells the model to use the
 * files "under Pre-loaded Files" and not read them again): the first file section starts with it.
 */
export const PRELOADED_FILES_HEADING = '### Pre-loaded Files'
