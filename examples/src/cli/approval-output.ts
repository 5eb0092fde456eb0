import type { AgentResult } from '@contextkit/agent-loop'
import type { EmbeddedApproval } from '../embedded-runner.js'
import type { DemoDecision } from './args.js'
import type { JsonOutput } from './json-output.js'
import { num, type Terminal } from './terminal.js'

/** A call the run waits on (agent-loop's `result.pending` item). */
type PendingApproval = NonNullable<AgentResult['pending']>[number]

/** `resume.approvals` of the runner for the decision `--approve` / `--deny` gave. */
export function approvalsOf(decision: DemoDecision): Record<string, EmbeddedApproval> {
  const answer: EmbeddedApproval = decision.approve
    ? { approve: true }
    : { approve: false, ...(decision.reason === undefined ? {} : { reason: decision.reason }) }
  return { [decision.toolCallId]: answer }
}

/** The `you ›` text of a decision: `approve call_1`, `deny call_1 ("not now")`. */
export function decisionText(decision: DemoDecision): string {
  if (decision.approve) return `approve ${decision.toolCallId}`
  const why = decision.reason === undefined ? '' : ` ("${decision.reason}")`
  return `deny ${decision.toolCallId}${why}`
}

/** One waiting call as a line: `write_file notes.md · 312 characters (call toolu_01…)`. */
function describePending(call: PendingApproval): string {
  const input = call.input
  const path = typeof input.path === 'string' ? ` ${input.path}` : ''
  const size =
    typeof input.content === 'string'
      ? ` · ${num(input.content.length)} characters of content`
      : ` · input ${JSON.stringify(input).slice(0, 120)}`
  return `${call.tool}${path}${size} (call ${call.toolCallId})`
}

/** The commands that finish the paused run of `sessionId` for one call. */
export function finishCommands(
  command: string,
  sessionId: string,
  toolCallId: string,
): { approve: string; deny: string } {
  return {
    approve: `${command} --session ${sessionId} --approve ${toolCallId}`,
    deny: `${command} --session ${sessionId} --deny ${toolCallId} "why"`,
  }
}

/**
 * Say that the run paused: each waiting call (tool, path, size of the content, id) and the exact
 * commands that approve or deny it; with `--json`, one `demo-awaiting-approval` event instead.
 */
export function showPending(
  pending: readonly PendingApproval[],
  where: { sessionId: string; command: string; term: Terminal; json?: JsonOutput },
): void {
  const calls = pending.map((p) => ({
    ...p,
    commands: finishCommands(where.command, where.sessionId, p.toolCallId),
  }))
  if (where.json) {
    where.json.event({ type: 'demo-awaiting-approval', sessionId: where.sessionId, pending: calls })
    return
  }
  const { term } = where
  const c = term.c
  term.line()
  term.line(
    c.bold(`waiting for your approval (${pending.length} call${pending.length === 1 ? '' : 's'}):`),
  )
  for (const call of calls) {
    term.line(`  ${describePending(call)}`)
    term.line(`    approve: ${call.commands.approve}`)
    term.line(`    deny:    ${call.commands.deny}`)
  }
  term.line(
    c.dim('Nothing was written. The run is saved in the session; finish it in any later run.'),
  )
}
