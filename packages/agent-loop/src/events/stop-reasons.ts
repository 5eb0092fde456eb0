import type { StopReason } from '@contextkit/core'

/**
 * Stop reasons of a reply that simply ended (core's `StopReason`s a run can end on): the run
 * ends with the reply's own reason.
 */
const REPLY_STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'refusal',
  'pause_turn',
  'model_context_window_exceeded',
] as const satisfies readonly StopReason[]

/** Every reason a run can end with, in one list (the type {@link AgentStopReason} is made from it). */
export const AGENT_STOP_REASONS = Object.freeze([
  ...REPLY_STOP_REASONS,
  /** `maxSteps(n)` fired (the default cap is 20 steps). */
  'max_steps',
  /** `toolCalled(name)` fired. */
  'tool_called',
  /** The loop guard saw the same call repeat. */
  'loop_detected',
  /** `budgetExceeded(tokens)` fired. */
  'budget_exceeded',
  /** A custom `stopWhen` function fired. */
  'stop_condition',
  /** The plan phase asked the user a question (`result.question`). */
  'clarify',
  /**
   * A tool call needs a person's approval (`approval: 'ask'`): the run paused with the calls in
   * `result.pending`; `runAgent({ session, messages: [], resume: { approvals } })` finishes it.
   */
  'awaiting_approval',
  /** The run was aborted (`abort()` or `signal`). */
  'aborted',
  /** The run failed (`result.error`). */
  'error',
] as const)

/** Why a run ended: one of {@link AGENT_STOP_REASONS}. */
export type AgentStopReason = (typeof AGENT_STOP_REASONS)[number]

const REPLY_STOPS: ReadonlySet<string> = new Set(REPLY_STOP_REASONS)

/** The run's stop reason for a last reply that called no tool: its own reason, else `end_turn`. */
export function replyStopReason(reason: StopReason): AgentStopReason {
  return REPLY_STOPS.has(reason) ? (reason as AgentStopReason) : 'end_turn'
}

/** Narrow a stop condition's `stopReason` to an {@link AgentStopReason} (`stop_condition` otherwise). */
export function conditionStopReason(reason: string): AgentStopReason {
  return (AGENT_STOP_REASONS as readonly string[]).includes(reason)
    ? (reason as AgentStopReason)
    : 'stop_condition'
}
