// The names this package writes into a turn and a trace: pure constants, exported from the root
// entry (and from ./node beside the middleware), so trace readers in any runtime can use them.

/**
 * The key (the middleware's name) under which the middleware keeps its per-run notes in
 * `run.state` (core `getRunState(run, PREFILL_STATE_KEY)`): what it sent, for `finalize` and
 * `recover`.
 */
export const PREFILL_STATE_KEY = 'prefill'

/**
 * Trace stages the prefill middleware records. They keep the names of the design this package
 * comes from (its cache trace's `session:prefill-injected` and `session:prefill-stripped`), so a
 * trace reads the same in both; the other three follow the pattern (`session:prefill-<event>`).
 */
export const PREFILL_TRACE_STAGES = Object.freeze({
  /**
   * `prepare` (or, with `steps: 'every'`, `prepareStep`) added a prefill:
   * `{ prefill, mode, placement, reason?, source, model, step, messages }`; `messages` are the
   * ones sent, the prefill included (a native prefill is their last, assistant, message).
   */
  injected: 'session:prefill-injected',
  /** `prepare` found a prefill the turn cannot take: `{ reason, model, source }`. */
  skipped: 'session:prefill-skipped',
  /** `finalize` removed it: `{ original, stripped, match, mode, stopReason, step }`. */
  stripped: 'session:prefill-stripped',
  /** `finalize` kept a non-ephemeral prefill at the start of the reply: `{ prefill, mode }`. */
  kept: 'session:prefill-kept',
  /** `recover` retried without a native prefill: `{ model, mode, error, messages }`. */
  fallback: 'session:prefill-fallback',
} as const)
