import { AgentLoopError } from '../provider/errors.js'

/**
 * The sections marked `required` (the system prompt given as a string is) do not fit in the
 * token budget left for sections, so the request would go without them: the run ends with this
 * error instead, before the call. Code `agent_loop_required_sections`.
 */
export class RequiredSectionsError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_required_sections`. */
  static override readonly code: string = 'agent_loop_required_sections'
}
