/**
 * Trace stages the agent loop records in `run.trace` (middleware record their own; see their
 * packages' `*_TRACE_STAGES`). Switch on these constants, never on the strings.
 */
export const AGENT_TRACE_STAGES = Object.freeze({
  /** `{ runId, model, sessionId?, historyMessages }` */
  runStart: 'agent:run-start',
  /** `{ sessionId, entries, messages, kept, warnings }`: the session was loaded and limited. */
  sessionLoaded: 'agent:session-loaded',
  /** `{ system, userSections, prefill, tools }`: what `runPrepare` produced. */
  prepared: 'agent:prepared',
  /** `{ action, plan?, question?, repaired }`: the plan phase's outcome. */
  plan: 'agent:plan',
  /**
   * `{ turn, phase, counter, budget, estimate, tokens, exact, requests, warnings }`: an
   * asynchronous token counter's pre-pass before fitting (see `AsyncTokenCounter`).
   */
  tokenCount: 'agent:token-count',
  /** `{ turn, phase, budget, tokens, kept, omissions }`: sections fitted for one call. */
  budget: 'agent:budget',
  /**
   * `{ turn, phase, mode, breakpoints, dropped, applied }`: the prompt-cache breakpoints of one
   * request (`breakpoints`: `{ at, reason, index? }` in precedence order; `dropped`: indexes of
   * messages whose own breakpoint found no slot; `applied`: markers the request carries).
   */
  cache: 'agent:cache',
  /** `{ turn, phase, formatter, model, messages, endsWith, prefilled, tools }` */
  request: 'agent:request',
  /** `{ turn, phase, stopReason, blocks, toolCalls, usage }` */
  reply: 'agent:reply',
  /**
   * `{ turn, by, error }`: a middleware `recover` hook gave a turn to retry with (`by` is its
   * name, or `agent-loop:prefill-fallback` for the loop's own fallback, `PREFILL_FALLBACK`).
   */
  recovered: 'agent:recovered',
  /** `{ turn, id, tool, input, isError, code?, chars, durationMs }` */
  tool: 'agent:tool',
  /** `{ turn, tool, repeats, action }`: the loop guard refused a repeated call. */
  loopGuard: 'agent:loop-guard',
  /** `{ turn, final, step }`: middleware `finalize` ran on a reply. */
  finalized: 'agent:finalized',
  /** `{ sessionId, appended, roles }`: entries appended to the session. */
  saved: 'agent:saved',
  /** `{ stopReason, turns, error? }`: the run ended. */
  stop: 'agent:stop',
} as const)
