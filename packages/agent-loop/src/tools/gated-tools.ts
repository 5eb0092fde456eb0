import type { Message, RunInfo, ToolCallBlock } from '@contextkit/core'
import type { AgentEvent, AgentWarning, PendingApproval } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import type { AgentLoopError } from '../provider/errors.js'
import type { ApprovalDraft } from '../session/session-run.js'
import { approvalDecisions, deniedError } from './approval.js'
import type { AgentTool } from './define-tool.js'
import type { LoopGuard, LoopGuardVerdict } from './loop-guard.js'
import { runToolStep } from './tool-step.js'

/** What {@link runGatedTools} needs: the step's calls and the run's tools, signal and session. */
export interface GatedToolsInput {
  calls: readonly ToolCallBlock[]
  /** Calls whose JSON input did not parse (id → why). */
  invalidCalls: ReadonlyMap<string, string>
  step: number
  guard: LoopGuard | undefined
  tools: ReadonlyMap<string, AgentTool>
  concurrency: number
  signal: AbortSignal
  run: RunInfo
  emit(event: AgentEvent): void
  warn(warning: AgentWarning): void
  /** One durable append: the approval entries first, then the messages. */
  save(messages: readonly Message[], approvals: readonly ApprovalDraft[]): Promise<void>
}

/** What a step's tools produced. */
export interface GatedTools {
  /** The user message of results (absent when every call waits for approval). */
  results?: Message
  verdict: LoopGuardVerdict
  /** The calls that wait for a person, in call order. */
  pending: PendingApproval[]
}

/**
 * The tool half of a step: each call's approval policy ({@link approvalDecisions}); the calls
 * that may run are run (a denied one gets its error result, a waiting one none, and
 * `tool-approval-requested` is emitted for it); then one durable append of the requests for
 * approval and the results.
 */
export async function runGatedTools(input: GatedToolsInput): Promise<GatedTools> {
  const { calls, step, run } = input
  const decisions = await approvalDecisions(calls, {
    tools: input.tools,
    refused: new Set(input.invalidCalls.keys()),
    runId: run.runId,
    warn: input.warn,
  })
  const pending: PendingApproval[] = []
  const answered = new Map<string, AgentLoopError>()
  for (const call of calls) {
    const decision = decisions.get(call.id) ?? 'allow'
    if (decision === 'allow') continue
    run.trace.record(AGENT_TRACE_STAGES.approval, { step, id: call.id, tool: call.name, decision })
    if (decision === 'deny') {
      answered.set(call.id, deniedError(call, undefined))
      continue
    }
    const waiting = { toolCallId: call.id, tool: call.name, input: call.input }
    pending.push(waiting)
    input.emit({ type: 'tool-approval-requested', step, ...waiting })
  }
  const asked = new Set(pending.map((p) => p.toolCallId))
  const { results, verdict } = await runToolStep({
    calls: calls.filter((c) => !asked.has(c.id)),
    invalidCalls: input.invalidCalls,
    answered,
    guard: input.guard,
    tools: input.tools,
    concurrency: input.concurrency,
    signal: input.signal,
    run,
    step,
    emit: input.emit,
  })
  const kept = results.content.length > 0 ? results : undefined
  const drafts = pending.map((p) => ({ ...p, status: 'requested' as const }))
  await input.save(kept ? [kept] : [], drafts)
  return { ...(kept ? { results: kept } : {}), verdict, pending }
}
