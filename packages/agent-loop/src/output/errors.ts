import { AgentLoopError } from '../provider/errors.js'

/**
 * The run's final structured output (`runAgent({ output })`) did not match the output schema
 * (or was no JSON, or the model did not give it), even after one repair call that showed the
 * model the error. `details.error` lists what was wrong. Code `agent_loop_output_invalid`.
 */
export class OutputValidationError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_output_invalid`. */
  static override readonly code: string = 'agent_loop_output_invalid'
}
