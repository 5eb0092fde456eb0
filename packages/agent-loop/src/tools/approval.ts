import { describeError, type ToolCallBlock } from '@contextkit/core'
import type { AgentWarning } from '../events/events.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import type { AgentTool, ApprovalDecision } from './define-tool.js'
import { ToolDeniedError } from './errors.js'

const DECISIONS: ReadonlySet<unknown> = new Set(['allow', 'ask', 'deny'])

/** What {@link approvalDecisions} needs besides the calls. */
export interface ApprovalInput {
  tools: ReadonlyMap<string, AgentTool>
  /** Calls refused before they could run (bad JSON, the loop guard): never asked about. */
  refused: ReadonlySet<string>
  runId: string
  warn(warning: AgentWarning): void
}

/**
 * Each call's decision under its tool's `approval` policy, by call id. A call that cannot run
 * anyway (unknown tool, refused, input its schema rejects) is `allow`ed, so it gets its usual
 * error result without bothering a person; a callback sees the validated input. A callback that
 * throws or answers something else makes the call `ask` (with a warning): the safe side.
 */
export async function approvalDecisions(
  calls: readonly ToolCallBlock[],
  input: ApprovalInput,
): Promise<Map<string, ApprovalDecision>> {
  const decisions = new Map<string, ApprovalDecision>()
  for (const call of calls) {
    const tool = input.tools.get(call.name)
    const policy = tool?.approval ?? 'allow'
    if (!tool || policy === 'allow' || input.refused.has(call.id)) {
      decisions.set(call.id, 'allow')
      continue
    }
    const parsed = await tool.input.safeParseAsync(call.input)
    if (!parsed.success) decisions.set(call.id, 'allow')
    else if (policy === 'ask') decisions.set(call.id, 'ask')
    else decisions.set(call.id, await askPolicy(policy, parsed.data, call, input))
  }
  return decisions
}

async function askPolicy(
  policy: Exclude<NonNullable<AgentTool['approval']>, string>,
  data: unknown,
  call: ToolCallBlock,
  input: ApprovalInput,
): Promise<ApprovalDecision> {
  try {
    const decision: unknown = await policy(data, { toolCallId: call.id, runId: input.runId })
    if (DECISIONS.has(decision)) return decision as ApprovalDecision
    input.warn({
      code: AGENT_LOOP_WARNINGS.approvalFailed,
      message: `The approval callback of tool "${call.name}" answered ${JSON.stringify(decision) ?? String(decision)}, not 'allow', 'ask' or 'deny': the call waits for a person.`,
      source: 'loop',
    })
  } catch (error) {
    input.warn({
      code: AGENT_LOOP_WARNINGS.approvalFailed,
      message: `The approval callback of tool "${call.name}" threw (${describeError(error)}): the call waits for a person.`,
      source: 'loop',
    })
  }
  return 'ask'
}

/** The error result of a refused call: the reason, when one was given, reaches the model. */
export function deniedError(call: ToolCallBlock, reason: string | undefined): ToolDeniedError {
  const why = reason === undefined || reason.trim() === '' ? '' : ` Reason: ${reason}`
  return new ToolDeniedError(`The call to tool "${call.name}" was not approved.${why}`, {
    details: { tool: call.name, ...(reason === undefined ? {} : { reason }) },
  })
}

/** Why a call waiting for approval is denied when a new user message comes instead. */
export const SUPERSEDED_REASON = 'The user sent a new message instead of deciding on this call.'
