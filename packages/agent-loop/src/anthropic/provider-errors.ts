import { assertObject, describeError } from '@contextkit/core'
import { ProviderError } from '../provider/errors.js'
import { asContextTooLong } from '../provider/overflow.js'

/**
 * Error types worth sending the same request again for: inside a 200 stream the SDK never
 * retries them, so the provider does (as it does for a dropped connection or a stalled stream).
 */
const TRANSIENT_ERROR_TYPES = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'timeout_error',
])

/** HTTP statuses the SDK itself retries (408, 409, 429, ≥ 500 with 529 "overloaded"). */
function transientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

interface SdkErrorShape {
  status?: unknown
  error?: unknown
  requestID?: unknown
  name?: unknown
}

function bodyType(body: unknown): string | undefined {
  const inner = (body as { error?: { type?: unknown } } | undefined)?.error
  return typeof inner?.type === 'string' ? inner.type : undefined
}

function bodyMessage(body: unknown): string | undefined {
  const inner = (body as { error?: { message?: unknown } } | undefined)?.error
  return typeof inner?.message === 'string' ? inner.message : undefined
}

function bodyRequestId(body: unknown): string | undefined {
  const id = (body as { request_id?: unknown } | undefined)?.request_id
  return typeof id === 'string' && id !== '' ? id : undefined
}

/** Where a failure happened, for {@link toProviderError}. */
export interface ProviderErrorContext {
  /**
   * The failure came after the response started (the SDK never retries those). Before that, the
   * SDK has already applied its own retries.
   */
  midStream: boolean
  /** The response's `request-id`, used when the error does not carry one itself. */
  requestId?: string | undefined
  /** The client's base URL, named in a connection failure's message. */
  baseURL?: string | undefined
}

/** The system error code in an error's cause chain (`ECONNREFUSED`, `ENOTFOUND`, …). */
function systemCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * A typed {@link ProviderError} for anything the SDK threw, read from the error's data (status,
 * body, request id), never its message text. `retryable` says whether the failure is transient
 * (429, 408, 409, 5xx and 529, an `overloaded_error`/`api_error`/`rate_limit_error`/
 * `timeout_error` inside a stream, a dropped connection); the provider itself sends the request
 * again only for transient failures `midStream`, since the SDK retries the others.
 * The SDK error is kept as the `cause`; its parsed body as `body` (so prefill's
 * `isPrefillRejection` reads it).
 */
export function toProviderError(thrown: unknown, context: ProviderErrorContext): ProviderError {
  assertObject(context, 'toProviderError', 'context')
  if (ProviderError.isInstance(thrown)) return thrown
  const { midStream, requestId: responseId } = context
  const shape = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as SdkErrorShape
  const status = typeof shape.status === 'number' ? shape.status : undefined
  const body = shape.error
  const requestId =
    (typeof shape.requestID === 'string' && shape.requestID !== '' ? shape.requestID : undefined) ??
    bodyRequestId(body) ??
    responseId
  const apiType = bodyType(body)
  const isApiError = typeof shape.name === 'string' && 'status' in shape && 'error' in shape
  let errorType: string
  let retryable: boolean
  if (apiType !== undefined) {
    errorType = apiType
    retryable = status === undefined ? TRANSIENT_ERROR_TYPES.has(apiType) : transientStatus(status)
  } else if (status !== undefined) {
    errorType = `http_${status}`
    retryable = transientStatus(status)
  } else {
    // no status and no API body: the connection failed (reset, timeout, closed early)
    errorType = 'connection'
    retryable = true
  }
  const what = bodyMessage(body) ?? describeError(thrown)
  const where = status !== undefined ? `HTTP ${status}` : midStream ? 'mid-stream' : 'request'
  const code = errorType === 'connection' ? systemCode(thrown) : undefined
  const message =
    errorType === 'connection' && !midStream && context.baseURL
      ? `Could not reach the Anthropic API at ${context.baseURL}${code ? ` (${code})` : ''}: ${what}`
      : `Anthropic ${where} error (${errorType}): ${what}`
  return asContextTooLong(
    new ProviderError(message, {
      ...(context.baseURL === undefined
        ? {}
        : { details: { url: context.baseURL, ...(code ? { code } : {}) } }),
      cause: thrown,
      errorType,
      retryable,
      ...(status === undefined ? {} : { status }),
      ...(requestId === undefined ? {} : { requestId }),
      ...(isApiError && body !== undefined ? { body } : {}),
    }),
  )
}
