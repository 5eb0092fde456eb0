import { AgentLoopError } from '../provider/errors.js'

/** A tool call's input failed the tool's zod schema (or was not valid JSON). */
export class ToolInputError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_tool_input`. */
  static override readonly code: string = 'agent_loop_tool_input'
}

/** The model called a tool that is not in the run's `tools`. */
export class UnknownToolError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_unknown_tool`. */
  static override readonly code: string = 'agent_loop_unknown_tool'
}

/** A tool's `execute` threw or rejected. The thrown value is the `cause`. */
export class ToolExecutionError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_tool_failed`. */
  static override readonly code: string = 'agent_loop_tool_failed'
}

/** A tool ran longer than its `timeoutMs`; its abort signal fired. */
export class ToolTimeoutError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_tool_timeout`. */
  static override readonly code: string = 'agent_loop_tool_timeout'
}

/** The run was aborted (`abort()` or the `signal` option) before the tool call finished. */
export class ToolAbortedError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_tool_aborted`. */
  static override readonly code: string = 'agent_loop_tool_aborted'
}

/**
 * A person (`resume: { approvals }`), a tool's approval callback (`'deny'`), or a new user
 * message sent instead of a decision refused the call: it never ran, and the model gets this
 * error result with the reason. Code `agent_loop_tool_denied`.
 */
export class ToolDeniedError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_tool_denied`. */
  static override readonly code: string = 'agent_loop_tool_denied'
}

/**
 * The process stopped (a crash, a kill) while this call was running, and its tool is not
 * `idempotent`, so a resumed run does not run it again: the model gets this error result
 * saying the call may or may not have taken effect. Code `agent_loop_tool_interrupted`.
 */
export class ToolInterruptedError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_tool_interrupted`. */
  static override readonly code: string = 'agent_loop_tool_interrupted'
}

/** The loop guard refused a call identical to the ones before it. */
export class RepeatedToolCallError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_repeated_call`. */
  static override readonly code: string = 'agent_loop_repeated_call'
}

/**
 * A tool returned a value that cannot be sent faithfully (a function, a cyclic object, a throwing
 * `toJSON`, an image that is not base64): the call becomes an error result. Code
 * `agent_loop_tool_output`.
 */
export class ToolOutputError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_tool_output`. */
  static override readonly code: string = 'agent_loop_tool_output'
}
