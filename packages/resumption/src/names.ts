// The names this package writes into a turn and a trace: pure constants, exported from the root
// entry (and from ./node beside the middleware), so trace readers in any runtime can use them.

/**
 * The key (the middleware's name) of the run's state (core `getRunState`) under which `prepare`
 * leaves what it injected, for `finalize`.
 */
export const RESUMPTION_STATE_KEY = 'resumption'

/**
 * Trace stages the middleware records (`resumption:<event>`). Each event's `data.action`
 * (`inject`, `skip`, `capture`, `capture-skip`) is deprecated: it repeats the stage, as it did
 * when all four shared the one stage `'resumption'` (kept for one minor release).
 */
export const RESUMPTION_TRACE_STAGES = Object.freeze({
  /** `prepare` injected the wake-up block: `{ placement, source, tokens, tailDropped? }`. */
  injected: 'resumption:injected',
  /** `prepare` had nothing to inject: `{ placement, source, tokens: 0, tailDropped? }`. */
  skipped: 'resumption:skipped',
  /** `finalize` saved the new tail: `{ tokens, revision, retried? }`. */
  captured: 'resumption:captured',
  /** `finalize` saved nothing (`{ reason }`, e.g. no new text in the final reply). */
  captureSkipped: 'resumption:capture-skipped',
} as const)
