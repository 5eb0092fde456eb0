import { AgentLoopError } from '../provider/errors.js'

/**
 * The plan phase (`analyze`) got no valid JSON answer, even after one repair request. The run
 * goes on without a plan and this becomes a warning.
 */
export class PlanError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_plan_invalid`. */
  static override readonly code: string = 'agent_loop_plan_invalid'
}

/**
 * `plan.ask` threw while asking the user the plan call's question. The question stays
 * unanswered: the run ends with `'clarify'`, and this becomes a warning.
 */
export class PlanQuestionError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_plan_question_failed`. */
  static override readonly code: string = 'agent_loop_plan_question_failed'
}
