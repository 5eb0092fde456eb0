import { ContextkitError, type ContextkitErrorOptions } from '@contextkit/core'

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

/** Options of {@link ContextTooLongError}. */
export interface ContextTooLongErrorOptions extends ProviderErrorOptions {
  /** The context window the server stated in its refusal, when it stated one. */
  window?: number
  /** How many tokens the refused request held, as the server counted them. */
  requestTokens?: number
}

/**
 * The provider refused the request because the prompt is longer than the model's context window:
 * the Anthropic API's 400 `invalid_request_error` whose message starts `prompt is too long`, an
 * OpenAI-style `context_length_exceeded`, or the vLLM and llama.cpp wordings (see
 * `isContextTooLong`). Never retryable as it is (the same request fails the same way); the loop
 * compacts the history once and sends the call again (see `compaction`). When the server stated
 * its window, `window` holds it, and the loop uses it for the rest of the run (and records it in
 * the session). Code `context_too_long`.
 */
export class ContextTooLongError extends ProviderError {
  /** The `code` of every error of this class: `context_too_long`. */
  static override readonly code: string = 'context_too_long'
  /** The context window the server stated, in its tokens; `undefined` when it stated none. */
  readonly window: number | undefined
  /** How many tokens the refused request held, as the server counted them; `undefined` when unsaid. */
  readonly requestTokens: number | undefined

  constructor(message: string, options: ContextTooLongErrorOptions = {}) {
    const { window, requestTokens, ...rest } = options ?? {}
    super(message, {
      ...rest,
      details: {
        ...(window === undefined ? {} : { window }),
        ...(requestTokens === undefined ? {} : { requestTokens }),
        ...rest.details,
      },
    })
    this.window = window
    this.requestTokens = requestTokens
  }
}
