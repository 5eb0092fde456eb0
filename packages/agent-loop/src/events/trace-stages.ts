/**
 * Trace stages the agent loop records in `run.trace` (middleware record their own; see their
 * packages' `*_TRACE_STAGES`). Switch on these constants, never on the strings.
 */
export const AGENT_TRACE_STAGES = Object.freeze({
  /** `{ runId, model, sessionId?, historyMessages, provider, system? }` (`provider`: its `name`) */
  runStart: 'agent:run-start',
  /** `{ sessionId, messages, state, warnings }`: the session was loaded (`messages`: message entries loaded, the tail's when the store has `loadTail`; `state`: its last run, `idle`, `reply` or `tools`). */
  sessionLoaded: 'agent:session-loaded',
  /** `{ system, userSections, prefill, tools }`: what `runPrepare` produced. */
  prepared: 'agent:prepared',
  /** `{ action, plan?, question?, repaired }`: the plan phase's outcome. */
  plan: 'agent:plan',
  /**
   * `{ step, phase, counter, budget, estimate, tokens, exact, requests, warnings }`: an
   * asynchronous token counter's pre-pass before fitting (see `AsyncTokenCounter`).
   */
  tokenCount: 'agent:token-count',
  /** `{ step, phase, budget, tokens, kept, omissions }`: sections fitted for one call. */
  budget: 'agent:budget',
  /**
   * `{ v: 1, step, phase, model, window, counter, parts, reply, total, free, messages }`: what
   * filled the window on one call, part by part in request order (`StepComposition`; `v` is
   * the record's version, readers check it). Recorded right after `agent:budget`.
   */
  composition: 'agent:composition',
  /**
   * `{ step, phase, mode, breakpoints, dropped, applied }`: the prompt-cache breakpoints of one
   * request (`breakpoints`: `{ at, reason, index? }` in precedence order; `dropped`: indexes of
   * messages whose own breakpoint found no slot; `applied`: markers the request carries).
   */
  cache: 'agent:cache',
  /**
   * `{ step, phase, formatter, model, maxTokens, provider, system?, baseUrl?, messages }`, plus
   * `{ roles, endsWith, prefilled, tools }`: one attempt of a model call is sent (`provider`: its
   * `name`; `system`, `baseUrl`: what the provider says of its API, when it does).
   */
  request: 'agent:request',
  /** `{ step, phase, stopReason, blocks, toolCalls, usage }` */
  reply: 'agent:reply',
  /**
   * `{ step, phase, attempt, delayMs, code, status?, errorType?, error }`: the provider sends a
   * model call again after a failure (the partial reply is void; the `retry` event).
   */
  retry: 'agent:retry',
  /**
   * `{ step, phase, stopReason, id?, model? }`: a model call's reply arrived whole; `id` and
   * `model` are the API's own (`msg_…`, the model that served it), when it gave them.
   */
  response: 'agent:response',
  /**
   * `{ step, by, error, status, errorType }`: a middleware `recover` hook gave a turn to retry
   * with (`by` is its name, or `agent-loop:trailing-turn` for the loop's trailing-turn rule,
   * `TRAILING_TURN_FALLBACK`).
   */
  recovered: 'agent:recovered',
  /** `{ step, id, tool, input, isError, code?, error?, chars, durationMs }` (`error`: its message) */
  tool: 'agent:tool',
  /**
   * `{ step, id, tool, decision }`: a call's approval (`allow`, `ask`, `deny` from its policy;
   * `approved` / `denied` from `resume: { approvals }` or a new message sent instead).
   */
  approval: 'agent:approval',
  /**
   * `{ state, rerun, interrupted, approved, denied, pending }`: the session's last run was
   * unfinished and this run took it up first (see the `run-resume` event).
   */
  resumed: 'agent:resumed',
  /** `{ step, tool, repeats, action }`: the loop guard refused a repeated call. */
  loopGuard: 'agent:loop-guard',
  /** `{ final, step }`: middleware `finalize` ran on a reply. */
  finalized: 'agent:finalized',
  /** `{ sessionId, appended, roles }`: entries appended to the session. */
  saved: 'agent:saved',
  /**
   * `{ step, reason, beforeTokens, afterTokens, summarized, kept, summaryTokens }`: the history
   * was compacted (see `runAgent({ compaction })`).
   */
  compacted: 'agent:compacted',
  /** `{ stopReason, steps, error? }`: the run ended. */
  stop: 'agent:stop',
} as const)
