import type { InspectorApproval } from '@contextkit/inspector'
import type { DemoDecision } from './args.js'
import type { DemoResume } from './inspect.js'
import { type Backend, runTurn, type TurnSpec } from './run-turn.js'

/** What {@link runTurn} needs besides the turn and the backend. */
export type TurnSettings = Parameters<typeof runTurn>[2]

function decisionOf(toolCallId: string, answer: InspectorApproval): DemoDecision {
  return answer.approve
    ? { toolCallId, approve: true }
    : {
        toolCallId,
        approve: false,
        ...(answer.reason === undefined ? {} : { reason: answer.reason }),
      }
}

/**
 * The inspector's `resume` for the demo: each decision finishes the session's paused run the way
 * `--approve` / `--deny` do (same backend, tools and output), one after the other.
 */
export function demoResume(backend: Backend, settings: TurnSettings): DemoResume {
  let queue: Promise<unknown> = Promise.resolve()
  return (sessionId, approvals) => {
    const next = queue.then(async () => {
      for (const [toolCallId, answer] of Object.entries(approvals)) {
        const spec: TurnSpec = { sessionId, text: '', decision: decisionOf(toolCallId, answer) }
        await runTurn(spec, backend, { ...settings, steps: false })
      }
    })
    queue = next.catch(() => {})
    return next
  }
}
