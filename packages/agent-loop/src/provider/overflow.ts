import { assertObject } from '@contextkit/core'
import { ContextTooLongError, type ProviderError } from './errors.js'

/** The start of the Anthropic API's message for a prompt over the context window. */
const PROMPT_TOO_LONG = 'prompt is too long'

/** The OpenAI-style error code for a prompt over the context window. */
const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded'

/** Whether `error` is already a {@link ContextTooLongError} (by code: works across copies). */
function typed(error: ProviderError): boolean {
  return error.code === ContextTooLongError.code
}

function innerError(body: unknown): { message?: unknown; code?: unknown; type?: unknown } {
  if (typeof body !== 'object' || body === null) return {}
  const inner = (body as { error?: unknown }).error
  return typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {}
}

/**
 * Whether a provider error says the prompt is longer than the context window. Matched narrowly:
 * an HTTP 400 `invalid_request_error` whose body message starts `prompt is too long` (the only
 * signal the Anthropic API gives), or the OpenAI-style code `context_length_exceeded` (as the
 * error type or the body's `error.code`). Any other 400 is not.
 */
export function isContextTooLong(error: ProviderError): boolean {
  assertObject(error, 'isContextTooLong', 'error')
  if (typed(error)) return true
  const inner = innerError(error.body)
  if (error.errorType === CONTEXT_LENGTH_EXCEEDED || inner.code === CONTEXT_LENGTH_EXCEEDED)
    return true
  if (error.status !== 400 || error.errorType !== 'invalid_request_error') return false
  return typeof inner.message === 'string' && inner.message.trimStart().startsWith(PROMPT_TOO_LONG)
}

/**
 * `error` as a {@link ContextTooLongError} (code `context_too_long`, not retryable) when
 * {@link isContextTooLong} says so; any other error unchanged. Providers call it on every error
 * they map, so the loop sees one typed code whatever the API said.
 */
export function asContextTooLong(error: ProviderError): ProviderError {
  assertObject(error, 'asContextTooLong', 'error')
  if (typed(error) || !isContextTooLong(error)) return error
  return new ContextTooLongError(error.message, {
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.errorType === undefined ? {} : { errorType: error.errorType }),
    ...(error.requestId === undefined ? {} : { requestId: error.requestId }),
    retryable: false,
    body: error.body,
    cause: error.cause ?? error,
    details: error.details,
  })
}
