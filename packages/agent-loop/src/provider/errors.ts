import { ContextkitError, type ContextkitErrorOptions, describeError } from '@contextkit/core'

/** Base class of the errors the agent loop raises on purpose (codes start with `agent_loop_`). */
export class AgentLoopError extends ContextkitError {
  /** The `code` of every error of this class: `agent_loop_error`. */
  static override readonly code: string = 'agent_loop_error'
}

/** Options of {@link ProviderError}. */
export interface ProviderErrorOptions extends ContextkitErrorOptions {
  /** HTTP status, when the provider answered with one (none for a failure inside a stream). */
  status?: number
  /** The provider's error type, e.g. `overloaded_error`, `invalid_request_error`, `connection`. */
  errorType?: string
  /** The provider's request id (`request-id` header), for support tickets and logs. */
  requestId?: string
  /** Whether trying the same request again may succeed. Default `false`. */
  retryable?: boolean
  /** The parsed error body, as the provider sent it. */
  body?: unknown
}

/**
 * A model provider failed: an HTTP error, an `event: error` inside a stream, a dropped
 * connection, or an abort (`errorType: 'aborted'`). Never the provider SDK's own error: that is
 * the `cause`. `status` and `body` follow the SDK's shape, so middleware `recover` hooks that read
 * them (prefill's `isPrefillRejection`) work on it directly.
 */
export class ProviderError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_provider_error`. */
  static override readonly code: string = 'agent_loop_provider_error'
  /** HTTP status, when the provider answered with one. */
  readonly status: number | undefined
  /** The provider's error type, e.g. `overloaded_error`. */
  readonly errorType: string | undefined
  /** The provider's request id, for support tickets and logs. */
  readonly requestId: string | undefined
  /** Whether trying the same request again may succeed. */
  readonly retryable: boolean
  /** The parsed error body, as the provider sent it. */
  readonly body: unknown

  constructor(message: string, options: ProviderErrorOptions = {}) {
    const { status, errorType, requestId, retryable, body, ...base } = options ?? {}
    super(message, {
      ...base,
      details: { status, errorType, requestId, retryable: retryable ?? false, ...base.details },
    })
    this.status = status
    this.errorType = errorType
    this.requestId = requestId
    this.retryable = retryable ?? false
    this.body = body
  }
}

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
 * The plan phase (`analyze`) got no valid JSON answer, even after one repair request. The run
 * goes on without a plan and this becomes a warning.
 */
export class PlanError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_plan_invalid`. */
  static override readonly code: string = 'agent_loop_plan_invalid'
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

/**
 * The sections marked `required` (the system prompt given as a string is) do not fit in the
 * token budget left for sections, so the request would go without them: the run ends with this
 * error instead, before the call. Code `agent_loop_required_sections`.
 */
export class RequiredSectionsError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_required_sections`. */
  static override readonly code: string = 'agent_loop_required_sections'
}

/**
 * The run's final structured output (`runAgent({ output })`) did not match the output schema
 * (or was no JSON, or the model did not give it), even after one repair call that showed the
 * model the error. `details.error` lists what was wrong. Code `agent_loop_output_invalid`.
 */
export class OutputValidationError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_output_invalid`. */
  static override readonly code: string = 'agent_loop_output_invalid'
}

/** A formatter could not render the turn (bad content for the format, a refused prefill). */
export class RequestBuildError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_request_build`. */
  static override readonly code: string = 'agent_loop_request_build'
}

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

/**
 * The provider refused the request because the prompt is longer than the model's context window:
 * the Anthropic API's 400 `invalid_request_error` whose message starts `prompt is too long`, or an
 * OpenAI-style `context_length_exceeded`. Never retryable as it is (the same request fails the
 * same way); the loop compacts the history once and sends the call again (see `compaction`).
 * Code `context_too_long`.
 */
export class ContextTooLongError extends ProviderError {
  /** The `code` of every error of this class: `context_too_long`. */
  static override readonly code: string = 'context_too_long'
}

/**
 * What cannot be left out of a request (system prompt, tool definitions and the user message
 * that opens the newest turn) is already larger than the model's context window, so no
 * compaction can make the request fit; the run ends with this error without a call, or after at
 * most one compaction attempt. Code `context_irreducible`.
 */
export class ContextIrreducibleError extends AgentLoopError {
  /** The `code` of every error of this class: `context_irreducible`. */
  static override readonly code: string = 'context_irreducible'
}
