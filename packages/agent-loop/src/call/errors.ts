import { AgentLoopError } from '../provider/errors.js'

/** A formatter could not render the turn (bad content for the format, a refused prefill). */
export class RequestBuildError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_request_build`. */
  static override readonly code: string = 'agent_loop_request_build'
}
