import type { AgentResult } from '@contextkit/agent-loop'
import type { EmbeddedApproval } from '../embedded-runner.js'
import type { DemoDecision } from './args.js'
import type { JsonOutput } from './json-output.js'
import { previewWrite, textOnDisk } from './pending-preview.js'
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

/** One waiting call as a line: `write_file notes.md · new file, 312 characters (call toolu_01…)`. */
function describePending(call: PendingApproval, before: string | undefined): string {
  const input = call.input
  const path = typeof input.path === 'string' ? ` ${input.path}` : ''
  const what = before === undefined ? 'new file, ' : 'replaces the file on disk, '
  const size =
    typeof input.content === 'string'
      ? ` · ${what}${num(input.content.length)} characters`
      : ` · input ${JSON.stringify(input).slice(0, 120)}`
  return `${call.tool}${path}${size} (call ${call.toolCallId})`
}

/** The file a waiting write would replace, read from the workspace (none for other calls). */
async function before(call: PendingApproval, workspace: string): Promise<string | undefined> {
  const { path, content } = call.input
  if (typeof path !== 'string' || typeof content !== 'string') return undefined
  return textOnDisk(workspace, path)
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
 * Say that the run paused: each waiting call (tool, path, size of the content, id), what it would
 * write (a new file's first lines, or a diff against the file on disk in `workspace`), and the
 * exact commands that approve or deny it; with `--json`, one `demo-awaiting-approval` event instead.
 */
export async function showPending(
  pending: readonly PendingApproval[],
  where: {
    sessionId: string
    command: string
    term: Terminal
    workspace: string
    json?: JsonOutput
  },
): Promise<void> {
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
    const onDisk = await before(call, where.workspace)
    term.line(`  ${describePending(call, onDisk)}`)
    if (typeof call.input.content === 'string') {
      for (const line of previewWrite(onDisk, call.input.content)) {
        const colour = line.startsWith('+ ') ? c.green : line.startsWith('- ') ? c.red : c.dim
        term.line(`    ${colour(line)}`)
      }
    }
    term.line(`    approve: ${call.commands.approve}`)
    term.line(`    deny:    ${call.commands.deny}`)
  }
  term.line(
    c.dim('Nothing was written. The run is saved in the session; finish it in any later run.'),
  )
}
