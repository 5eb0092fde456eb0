import type { Message, RunInfo, ToolCallBlock } from '@contextkit/core'
import type { AgentEvent, AgentWarning, PendingApproval, ResumeSummary } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import type { AgentLoopError } from '../provider/errors.js'
import type { UnansweredCall } from '../session/run-state.js'
import type { ApprovalDraft } from '../session/session-run.js'
import { deniedError, SUPERSEDED_REASON } from '../tools/approval.js'
import type { AgentTool } from '../tools/define-tool.js'
import { ToolInterruptedError } from '../tools/errors.js'
import { runToolStep } from '../tools/tool-step.js'
import type { ApprovalAnswer } from './option-checks.js'

/** What {@link finishCalls} needs from the run. */
export interface FinishCallsInput {
  unanswered: readonly UnansweredCall[]
  /** The decisions given with `resume` (by tool call id). */
  approvals: Readonly<Record<string, ApprovalAnswer>>
  /** New user messages came with this run: calls still waiting are denied. */
  superseded: boolean
  tools: ReadonlyMap<string, AgentTool>
  concurrency: number
  signal: AbortSignal
  run: RunInfo
  emit(event: AgentEvent): void
  warn(warning: AgentWarning): void
  /** Make the decisions durable; called before any approved call runs. */
  saveDecisions(drafts: ApprovalDraft[]): Promise<void>
}

/** What {@link finishCalls} did: the results to save and send, and the calls still waiting. */
export interface FinishedCalls {
  /** The user message of results (absent when every call still waits). */
  results?: Message
  pending: PendingApproval[]
  summary: ResumeSummary
}

type Plan = { run: ToolCallBlock[]; answered: Map<string, AgentLoopError>; drafts: ApprovalDraft[] }

/**
 * Answer the calls of the session's last reply that have no result, as the log says they
 * stand: a call waiting for approval is run (approved; the decision is saved first) or denied
 * when decided, and otherwise keeps waiting (denied when new messages came instead); a call that
 * was running when the process stopped is run again when its tool is `idempotent`, and answered
 * with {@link ToolInterruptedError} otherwise (it may have taken effect). Tool events carry
 * step 0.
 */
export async function finishCalls(input: FinishCallsInput): Promise<FinishedCalls> {
  const summary: ResumeSummary = {
    state: 'tools',
    rerun: [],
    interrupted: [],
    approved: [],
    denied: [],
    pending: [],
  }
  const pending: PendingApproval[] = []
  const plan: Plan = { run: [], answered: new Map(), drafts: [] }
  for (const item of input.unanswered) {
    const waiting = placeCall(item, input, plan, summary)
    if (waiting) pending.push(waiting)
  }
  warnUnmatched(input)
  if (plan.drafts.length > 0) await input.saveDecisions(plan.drafts)
  for (const draft of plan.drafts) {
    input.run.trace.record(AGENT_TRACE_STAGES.approval, {
      step: 0,
      id: draft.toolCallId,
      tool: draft.tool,
      decision: draft.status,
    })
  }
  if (plan.run.length === 0) return { pending, summary }
  const { results } = await runToolStep({
    calls: plan.run,
    invalidCalls: new Map(),
    answered: plan.answered,
    guard: undefined,
    tools: input.tools,
    concurrency: input.concurrency,
    signal: input.signal,
    run: input.run,
    step: 0,
    emit: input.emit,
  })
  return { results, pending, summary }
}

/** Decide one unanswered call; returns it when it keeps waiting for a person. */
function placeCall(
  { call, approval }: UnansweredCall,
  input: FinishCallsInput,
  plan: Plan,
  summary: ResumeSummary,
): PendingApproval | undefined {
  const draft = { toolCallId: call.id, tool: call.name }
  if (approval?.status === 'requested') {
    const answer = input.approvals[call.id]
    if (answer === undefined && !input.superseded) {
      summary.pending.push(call.id)
      return { toolCallId: call.id, tool: call.name, input: call.input }
    }
    plan.run.push(call)
    if (answer?.approve === true) {
      plan.drafts.push({ ...draft, status: 'approved' })
      summary.approved.push(call.id)
      return undefined
    }
    const reason = answer === undefined ? SUPERSEDED_REASON : answer.reason
    plan.drafts.push({ ...draft, status: 'denied', ...(reason === undefined ? {} : { reason }) })
    plan.answered.set(call.id, deniedError(call, reason))
    summary.denied.push(call.id)
    return undefined
  }
  plan.run.push(call)
  if (approval?.status === 'denied') {
    plan.answered.set(call.id, deniedError(call, approval.reason))
    summary.denied.push(call.id)
  } else if (input.tools.get(call.name)?.idempotent === true) {
    summary.rerun.push(call.id)
  } else {
    plan.answered.set(call.id, interruptedError(call))
    summary.interrupted.push(call.id)
  }
  return undefined
}

function interruptedError(call: ToolCallBlock): ToolInterruptedError {
  return new ToolInterruptedError(
    `The run stopped (the process crashed or was killed) while this call to tool "${call.name}" was running. It may or may not have taken effect: check before calling it again.`,
    { details: { tool: call.name } },
  )
}

/** Warn about each decision in `approvals` that names no call waiting for one (it is ignored). */
export function warnUnmatched(
  input: Pick<FinishCallsInput, 'unanswered' | 'approvals' | 'warn'>,
): void {
  const waiting = new Set(
    input.unanswered.filter((u) => u.approval?.status === 'requested').map((u) => u.call.id),
  )
  for (const id of Object.keys(input.approvals)) {
    if (waiting.has(id)) continue
    input.warn({
      code: AGENT_LOOP_WARNINGS.approvalUnmatched,
      message: `resume.approvals names tool call ${JSON.stringify(id)}, which is not waiting for approval; the decision is ignored.`,
      source: 'loop',
    })
  }
}
