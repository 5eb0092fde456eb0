// The names this package writes into a turn and a trace: pure constants, exported from the root
// entry (and from ./node beside the middleware), so trace readers in any runtime can use them.

/**
 * The key (the middleware's name) under which the middleware keeps its per-run notes in
 * `run.state` (core `getRunState(run, PREFILL_STATE_KEY)`): what it sent, for `finalize` and
 * `recover`.
 */
export const PREFILL_STATE_KEY = 'prefill'

/** Trace stages the prefill middleware records (`prefill:<event>`). */
export const PREFILL_TRACE_STAGES = Object.freeze({
  /** `prepare` added a prefill: `{ prefill, mode, placement, reason?, source, model, messages }`. */
  injected: 'prefill:injected',
  /** `prepare` found a prefill the turn cannot take: `{ reason, model, source }`. */
  skipped: 'prefill:skipped',
  /** `finalize` removed it: `{ original, stripped, match, mode, stopReason }`. */
  stripped: 'prefill:stripped',
  /** `finalize` kept a non-ephemeral prefill at the start of the reply: `{ prefill, mode }`. */
  kept: 'prefill:kept',
  /** `recover` retried without a native prefill: `{ model, mode, error, messages }`. */
  fallback: 'prefill:fallback',
} as const)
