import type { ContextkitError } from '@contextkit/core'
import {
  emptyUsage,
  type Message,
  type ModelPricing,
  sealMessages,
  type ToolCallBlock,
  textOf,
  type Usage,
  ValidationError,
} from '@contextkit/core'
import {
  type AgentCallUsage,
  type AgentPhase,
  type AgentResult,
  type AgentWarning,
  type PendingApproval,
  withCacheHitRate,
} from './events.js'
import { addUsage, runUsage } from './run-usage.js'
import type { AgentStopReason } from './stop-reasons.js'

/** Seal `message` unless it holds something sealing refuses (then it stays as it is). */
function sealIfPlain(message: Message): void {
  try {
    sealMessages([message])
  } catch (error) {
    // a shortcut only: such a message is checked on every later request instead
    if (!(error instanceof ValidationError)) throw error
  }
}

/** What a run's result carries beside the common fields, by how it stopped. */
export type ResultExtra =
  | { question: string; context: string }
  | { pending: PendingApproval[] }
  | { output: unknown }

/**
 * What one run has gathered so far: its saved and sent messages, tool calls, usage per call,
 * step count, warnings and plan. The loop adds to it; {@link RunRecord.result} turns it into
 * the run's {@link AgentResult}.
 */
export class RunRecord {
  readonly warnings: AgentWarning[] = []
  /** The run's new messages as saved (finalized replies and tool results). */
  readonly saved: Message[] = []
  /** The run's new messages as the model sent and sees them (the next call's `extra`). */
  readonly sent: Message[] = []
  readonly toolCalls: ToolCallBlock[] = []
  readonly calls: AgentCallUsage[] = []
  usage: Usage = emptyUsage()
  steps = 0
  plan: string | undefined

  /**
   * @param runId - the run's id, copied into the result.
   * @param pricing - the model's prices, for each call's and the run's cost.
   */
  constructor(
    readonly runId: string,
    readonly pricing: ModelPricing | undefined,
  ) {}

  /** Count one call's usage: into the run's sum and as the call's own row. */
  addUsage(usage: Usage, step: number, phase: AgentPhase): void {
    this.usage = addUsage(this.usage, usage)
    this.calls.push({ ...withCacheHitRate(usage, this.pricing), step, phase })
  }

  /**
   * The run's result as of now (copies, so later additions do not change it). Its messages are
   * sealed (core's `sealMessages`): a caller that keeps them as the next run's history gets them
   * trusted by identity. A message that cannot be sealed (a finalize hook's class instance, a tool
   * input that is not JSON data) is left as it is.
   */
  result(stopReason: AgentStopReason, error?: ContextkitError, extra?: ResultExtra): AgentResult {
    for (const message of this.saved) sealIfPlain(message)
    const last = this.saved.findLast((m) => m.role === 'assistant')
    return {
      runId: this.runId,
      messages: [...this.saved],
      steps: this.steps,
      usage: runUsage(this.usage, this.calls, this.pricing),
      stopReason,
      warnings: [...this.warnings],
      text: last ? textOf(last) : '',
      ...(this.plan === undefined ? {} : { plan: this.plan }),
      ...(extra ?? {}),
      ...(error ? { error } : {}),
    }
  }
}
