import { ContextkitError, type ContextkitErrorOptions } from '@contextkit/core'

/** Base class of this package's errors (codes start with `ai_sdk_`). */
export class AiSdkMiddlewareError extends ContextkitError {
  /** The `code` of every error of this class: `ai_sdk_error`. */
  static override readonly code: string = 'ai_sdk_error'
}

/**
 * A model call through the AI SDK failed (its `APICallError` or any other throw is the `cause`).
 * `status` and `body` (the parsed response body) are set where the AI SDK had them, in the shape
 * middleware `recover` hooks read (prefill's `isPrefillRejection`).
 */
export class AiSdkCallError extends AiSdkMiddlewareError {
  /** The `code` of every error of this class: `ai_sdk_call_failed`. */
  static override readonly code: string = 'ai_sdk_call_failed'
  /** HTTP status of the failed call, when there was one. */
  readonly status: number | undefined
  /** The error body, as the provider sent it. */
  readonly body: unknown

  constructor(
    message: string,
    options: ContextkitErrorOptions & { status?: number; body?: unknown } = {},
  ) {
    const { status, body, ...base } = options ?? {}
    super(message, { ...base, details: { status, ...base.details } })
    this.status = status
    this.body = body
  }
}

/** The AI SDK's error as an {@link AiSdkCallError}: `statusCode` → `status`, the response body parsed. */
export function callError(error: unknown): AiSdkCallError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  let body: unknown = e.data ?? e.responseBody
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body)
    } catch {
      // a plain-text body
    }
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : undefined
  const message = error instanceof Error ? error.message : String(error)
  return new AiSdkCallError(
    `The model call failed${status ? ` (HTTP ${status})` : ''}: ${message}`,
    {
      cause: error,
      ...(status === undefined ? {} : { status }),
      body,
    },
  )
}
