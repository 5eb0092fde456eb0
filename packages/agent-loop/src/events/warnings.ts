import { PROVIDER_WARNINGS } from '../provider/warnings.js'

/**
 * Codes of the warnings the loop itself reports (`AgentWarning.code`, `result.warnings`), for
 * comparisons without string literals. Providers add their own (`ANTHROPIC_REQUEST_WARNINGS`,
 * `CHAT_BODY_WARNINGS`); session loading adds the store's (store-files' `SESSION_WARNING_CODES`);
 * errors turned into warnings (a plan answer that never parsed) carry their error class's `code`.
 */
export const AGENT_LOOP_WARNINGS = Object.freeze({
  ...PROVIDER_WARNINGS,
  /** A model refused the request's trailing assistant turn; it was sent again without it. */
  trailingTurnDropped: 'agent_loop_trailing_turn_dropped',
  /** A section was left out to fit the token budget (once per section and run). */
  sectionDropped: 'agent_loop_section_dropped',
  /** Message cache breakpoints over the per-request limit were not sent. */
  cacheBreakpointsDropped: 'agent_loop_cache_breakpoints_dropped',
  /**
   * A tool's approval callback threw or returned something other than `'allow'`, `'ask'` or
   * `'deny'`: the call waits for a person (`'ask'`), the safe side.
   */
  approvalFailed: 'agent_loop_approval_failed',
  /** `resume: { approvals }` named a call that is not waiting for approval (ignored). */
  approvalUnmatched: 'agent_loop_approval_unmatched',
  /**
   * A compaction freed less than a tenth of the context window: threshold compaction is off for
   * the rest of the run (overflow compaction still applies).
   */
  compactionIneffective: 'agent_loop_compaction_ineffective',
  /** The summarizer failed; the history was sent as it was. */
  compactionFailed: 'agent_loop_compaction_failed',
  /** A compaction could not be written to the session (its first kept message has no entry id). */
  compactionNotSaved: 'agent_loop_compaction_not_saved',
  /**
   * A server stated a context window smaller than the one in force (in an overflow refusal): the
   * run uses it from then on, and the session records it for the next run.
   */
  contextWindowLearned: 'agent_loop_context_window_learned',
  /** A session's compaction entry names an entry id the session does not hold; it was ignored. */
  compactionUnknownId: 'agent_loop_compaction_unknown_id',
} as const)
