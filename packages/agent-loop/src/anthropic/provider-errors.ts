import { describeError } from '@contextkit/core'
import { ProviderError } from '../errors.js'

/** Error types of an `event: error` inside a 200 stream that are worth sending again. */
const RETRYABLE_STREAM_ERRORS = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'timeout_error',
])

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

/**
 * A typed {@link ProviderError} for anything the SDK threw, read from the error's data (status,
 * body, request id), never its message text. `midStream`: the failure came after the response
 * started (the SDK never retries those), which makes overloaded/api errors and dropped
 * connections retryable; before that, the SDK has already applied its own retries.
 */
export function toProviderError(thrown: unknown, midStream: boolean): ProviderError {
  if (ProviderError.isInstance(thrown)) return thrown
  const shape = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as SdkErrorShape
  const status = typeof shape.status === 'number' ? shape.status : undefined
  const body = shape.error
  const requestId = typeof shape.requestID === 'string' ? shape.requestID : undefined
  const apiType = bodyType(body)
  const isApiError = typeof shape.name === 'string' && 'status' in shape && 'error' in shape
  let errorType: string
  let retryable: boolean
  if (apiType !== undefined) {
    errorType = apiType
    retryable = midStream && status === undefined && RETRYABLE_STREAM_ERRORS.has(apiType)
  } else if (status !== undefined) {
    errorType = `http_${status}`
    retryable = false
  } else {
    // no status and no API body: the connection failed (reset, timeout, closed early)
    errorType = 'connection'
    retryable = midStream
  }
  const what = bodyMessage(body) ?? describeError(thrown)
  const where = status !== undefined ? `HTTP ${status}` : midStream ? 'mid-stream' : 'request'
  return new ProviderError(`Anthropic ${where} error (${errorType}): ${what}`, {
    cause: thrown,
    errorType,
    retryable,
    ...(status === undefined ? {} : { status }),
    ...(requestId === undefined ? {} : { requestId }),
    ...(isApiError && body !== undefined ? { body } : {}),
  })
}
