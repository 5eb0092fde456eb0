import {
  type AssistantMessage,
  assertObject,
  type ContextkitError,
  type Message,
  type ModelPricing,
  type ToolCallBlock,
  type ToolResultBlock,
  type Usage,
  usageCostUsd,
} from '@contextkit/core'
import type { AgentStopReason } from './stop-reasons.js'

/** Token usage with the share of input tokens that were read from the prompt cache. */
export interface AgentUsage extends Usage {
  /**
   * `cacheRead ÷ (input + cacheRead + cacheWrite)`: the share of all input tokens (uncached,
   * read from the cache, written to it) that were cache reads; `0` when no input was reported.
   */
  cacheHitRate: number
  /**
   * What the tokens cost in US dollars at the model's prices (core's model table, cache writes at
   * the 5-minute rate). Absent when a needed price is unknown (a local model, a price not
   * published): never a guess.
   */
  costUsd?: number
}

/** The usage of one model call of a run. */
export interface AgentCallUsage extends AgentUsage {
  /** The call's step (`0` for the plan phase); a retried call appears once per attempt. */
  step: number
  /** Whether the call was the plan call or a step of the run. */
  phase: AgentPhase
}

/** A run's usage: the sums and the run's hit rate, and every call's own figures. */
export interface AgentRunUsage extends AgentUsage {
  /** One entry per model call, in order (plan calls and retried attempts included). */
  calls: AgentCallUsage[]
}

/**
 * The share of input tokens read from the prompt cache,
 * `cacheRead ÷ (input + cacheRead + cacheWrite)`; `0` when there were none.
 */
export function cacheHitRate(usage: Usage): number {
  assertObject(usage, 'cacheHitRate', 'usage')
  const total = usage.input + usage.cacheRead + usage.cacheWrite
  return total > 0 ? usage.cacheRead / total : 0
}

/** `usage` with its {@link cacheHitRate}, and its cost when `pricing` covers it. */
export function withCacheHitRate(usage: Usage, pricing?: ModelPricing): AgentUsage {
  const costUsd = usageCostUsd(usage, pricing)
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    cacheHitRate: cacheHitRate(usage),
    ...(costUsd === undefined ? {} : { costUsd }),
  }
}

/** Something that went wrong without stopping the run (a feature turned itself off). */
export interface AgentWarning {
  /** Stable code, e.g. `agent_loop_plan_invalid`, `session_torn_line`, `prefill_read`. */
  code: string
  /** What happened, for a person. */
  message: string
  /** Who reported it: `session`, `plan`, `provider`, `formatter`, `loop`, or `<middleware>.<hook>`. */
  source: string
}

/** A tool call that waits for a person's decision (`stopReason: 'awaiting_approval'`). */
export type PendingApproval = {
  toolCallId: string
  tool: string
  /** The call's input, as the model sent it. */
  input: Record<string, unknown>
}

/**
 * What a run took up from its session's unfinished last run, by tool call id (see the
 * `run-resume` event). `state` is `reply` when the log ended with input the model had not
 * answered (the model call is made again), `tools` when a reply's calls had no result.
 */
export type ResumeSummary = {
  state: 'reply' | 'tools'
  /** Calls of `idempotent` tools run again (they had no saved result). */
  rerun: string[]
  /** Calls that may have run before the crash: answered with `ToolInterruptedError`. */
  interrupted: string[]
  /** Calls approved (now run). */
  approved: string[]
  /** Calls denied (answered with `ToolDeniedError`). */
  denied: string[]
  /** Calls still waiting for a decision. */
  pending: string[]
}

/** What a run produced. */
export interface AgentResult<Output = unknown> {
  /** The run's id. */
  runId: string
  /**
   * Only the new messages, in order, as saved: assistant replies (finalized) and the user
   * messages holding tool results. The user turn you passed is not repeated here. Sealed (core's
   * `sealMessages`, frozen): keep them as the next run's history, copy one to change it.
   */
  messages: Message[]
  /** Steps run (model calls, each with the tools it asked for), the plan call included. */
  steps: number
  /**
   * Usage summed over every model call, with the run's cache hit rate, and each call's figures
   * and hit rate in `calls`.
   */
  usage: AgentRunUsage
  /** Why the run ended. */
  stopReason: AgentStopReason
  /** Everything that went wrong without stopping the run, in order. */
  warnings: AgentWarning[]
  /** Text of the last reply (`''` when there is none). */
  text: string
  /** The plan the plan phase produced (`runAgent({ plan })`), when it proceeded with one. */
  plan?: string
  /** For `stopReason: 'clarify'`: the question for the user, and why it is asked. */
  question?: string
  /** For `stopReason: 'clarify'`: why the question is asked. */
  context?: string
  /** For `stopReason: 'awaiting_approval'`: the calls that wait for a person, in call order. */
  pending?: PendingApproval[]
  /** For `stopReason: 'error'` (and an abort with a reason): what stopped the run. */
  error?: ContextkitError
  /**
   * The final structured output (`runAgent({ output })`), validated by the schema; set when the
   * run ended with `end_turn` and the output was valid.
   */
  output?: Output
}

/**
 * Where a model call belongs: the plan phase (`runAgent({ plan })`, step 0), the agent loop
 * (steps from 1), the output phase (`runAgent({ output })`: its calls are steps numbered after
 * the final reply's), or the summary call of a compaction (made within the step it compacts for,
 * with that step's number; no `step-start` of its own).
 */
export type AgentPhase = 'plan' | 'agent' | 'output' | 'compaction'

/**
 * Everything a run reports, in order, discriminated on `type`. `step` numbers the steps of the
 * agent loop from 1 (a step is one model call plus the tools it asked for; the plan call, and
 * the calls a resumed run finishes before its first model call, are step 0); a retried call
 * keeps its step.
 */
export type AgentEvent =
  | { type: 'run-start'; runId: string; model: string; sessionId?: string; historyMessages: number }
  | ({ type: 'run-resume' } & ResumeSummary)
  | { type: 'step-start'; step: number; phase: AgentPhase }
  | { type: 'text-delta'; step: number; text: string }
  | { type: 'thinking-delta'; step: number; text: string }
  | { type: 'tool-call-start'; step: number; id: string; name: string }
  | { type: 'tool-call-delta'; step: number; id: string; partialJson: string }
  | { type: 'tool-call'; step: number; call: ToolCallBlock }
  | {
      type: 'tool-result'
      step: number
      name: string
      result: ToolResultBlock
      durationMs: number
      /** The typed reason when `result.isError`. */
      error?: ContextkitError
    }
  | {
      type: 'usage'
      step: number
      /** This call's usage and cache hit rate. */
      usage: AgentUsage
      /** The run's so far (sums and hit rate). */
      total: AgentUsage
    }
  | ({ type: 'tool-approval-requested'; step: number } & PendingApproval)
  | { type: 'warning'; warning: AgentWarning }
  | {
      type: 'retry'
      step: number
      /** `provider`: a failed stream is sent again; `middleware`: a `recover` hook changed the turn. */
      source: 'provider' | 'middleware'
      attempt: number
      delayMs: number
      error: ContextkitError
      /** The middleware that recovered (`source: 'middleware'`). */
      by?: string
    }
  | {
      type: 'step-end'
      step: number
      /** Whether the call was the plan call or a step of the run. */
      phase: AgentPhase
      /** The reply as finalized (what is saved). */
      message: AssistantMessage
      /** The tool results sent back after it, when it called tools. */
      toolResults?: Message
    }
  | { type: 'run-end'; result: AgentResult }
  /** The history is being summarized before the step's call (see `runAgent({ compaction })`). */
  | {
      type: 'compaction-start'
      step: number
      reason: CompactionReason
      /** The request's estimated input tokens before the compaction. */
      beforeTokens: number
    }
  /** The history was summarized: the step's call sends the summary and the kept tail. */
  | {
      type: 'compaction-end'
      step: number
      reason: CompactionReason
      beforeTokens: number
      /** The request's estimated input tokens after the compaction. */
      afterTokens: number
    }

/**
 * Why the history was compacted: its estimate passed `compaction.at` (`threshold`), or the
 * provider refused the prompt as longer than the window (`overflow`).
 */
export type CompactionReason = 'threshold' | 'overflow'

/** Names of the event types, for filtering without string literals. */
export const AGENT_EVENT_TYPES = Object.freeze([
  'run-start',
  'run-resume',
  'step-start',
  'text-delta',
  'thinking-delta',
  'tool-call-start',
  'tool-call-delta',
  'tool-call',
  'tool-result',
  'usage',
  'tool-approval-requested',
  'warning',
  'retry',
  'step-end',
  'run-end',
  'compaction-start',
  'compaction-end',
] as const satisfies ReadonlyArray<AgentEvent['type']>)

export { EventChannel } from './event-channel.js'
