import { ContextkitError, describeError } from '@contextkit/core'
import { AgentLoopError } from '../provider/errors.js'

/** The run was aborted; `result.error` holds this when the abort came with a reason. */
export class AgentAbortedError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_aborted`. */
  static override readonly code: string = 'agent_loop_aborted'
}

/**
 * The error a run aborted by `signal` reports: the reason itself when it is a `ContextkitError`,
 * none for a plain abort, else an {@link AgentAbortedError} naming the reason.
 */
export function abortError(signal: AbortSignal): ContextkitError | undefined {
  const reason: unknown = signal.reason
  if (ContextkitError.isInstance(reason)) return reason
  if (reason === undefined || (reason instanceof Error && reason.name === 'AbortError'))
    return undefined
  return new AgentAbortedError(`The run was aborted: ${describeError(reason)}`, { cause: reason })
}
