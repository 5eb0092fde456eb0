import { describeError } from '@contextkit/core'
import { ProviderError } from './errors.js'

/**
 * `errorType`s the fetch-based providers (`/openai`, `/completions`) give their own failures;
 * an HTTP error keeps the server's own type (or `http_<status>`).
 */
export const HTTP_ERROR_TYPES = Object.freeze({
  /** The server could not be reached (refused, reset before a response, DNS). */
  connection: 'connection',
  /** An SSE line that is not a field, or `data:` that is not JSON. */
  malformed: 'malformed_sse',
  /** The body ended before `[DONE]` or a `finish_reason`, or was cut mid-way. */
  incomplete: 'incomplete_stream',
  /** No byte arrived for `idleTimeoutMs`. */
  idle: 'idle_timeout',
  /** The request was not a prompt-string one (a chat format). */
  unsupported: 'unsupported_request',
  /** A 200 answer that is neither an event stream nor a completion. */
  badResponse: 'bad_response',
} as const)

/** The system error code in a `fetch` failure's cause chain (`ECONNREFUSED`, `ENOTFOUND`, …). */
function systemCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * A `fetch` that failed before any response: connection refused, DNS, reset. `server` names the
 * kind of server in the message (default `completions server`).
 */
export function connectionError(
  url: string,
  thrown: unknown,
  server = 'completions server',
): ProviderError {
  const code = systemCode(thrown)
  const cause = (thrown as { cause?: unknown } | null)?.cause
  const what = cause === undefined ? describeError(thrown) : describeError(cause)
  return new ProviderError(
    `Could not reach the ${server} at ${url}${code ? ` (${code})` : ''}: ${what}`,
    {
      cause: thrown,
      errorType: HTTP_ERROR_TYPES.connection,
      retryable: true,
      details: { url, ...(code ? { code } : {}) },
    },
  )
}

/** The server's own words in an error body: OpenAI `{ error: { message, type } }`, llama.cpp, vLLM, Ollama. */
export function serverMessage(body: unknown): { message?: string; type?: string } {
  if (typeof body !== 'object' || body === null) return {}
  const b = body as Record<string, unknown>
  const error = b.error
  if (typeof error === 'string') return { message: error }
  if (typeof error === 'object' && error !== null) {
    const e = error as Record<string, unknown>
    return {
      ...(typeof e.message === 'string' ? { message: e.message } : {}),
      ...(typeof e.type === 'string' ? { type: e.type } : {}),
    }
  }
  if (typeof b.message === 'string') return { message: b.message }
  if (typeof b.detail === 'string') return { message: b.detail }
  return {}
}

function transientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/** A non-2xx answer, with the server's message (JSON body or plain text); `server` as in {@link connectionError}. */
export function httpError(
  url: string,
  status: number,
  text: string,
  requestId: string | undefined,
  server = 'completions server',
): ProviderError {
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // a plain-text error page
  }
  const { message, type } = serverMessage(body)
  const said = message ?? (text.trim().slice(0, 500) || 'no message')
  const errorType = type ?? `http_${status}`
  return new ProviderError(`The ${server} answered HTTP ${status} (${errorType}): ${said}`, {
    status,
    errorType,
    retryable: transientStatus(status),
    body,
    ...(requestId ? { requestId } : {}),
    details: { url },
  })
}

/** An error object sent inside the event stream; `server` as in {@link connectionError}. */
export function streamError(
  body: unknown,
  requestId: string | undefined,
  server = 'completions server',
): ProviderError {
  const { message, type } = serverMessage(body)
  const errorType = type ?? 'server_error'
  return new ProviderError(
    `The ${server} failed mid-stream (${errorType}): ${message ?? 'no message'}`,
    {
      errorType,
      retryable: errorType === 'overloaded_error' || errorType === 'server_error',
      body,
      ...(requestId ? { requestId } : {}),
    },
  )
}

/** A line of the event stream that is not SSE, or `data:` that is not JSON. */
export function malformedError(
  line: string,
  requestId: string | undefined,
  server = 'completions server',
): ProviderError {
  const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line
  return new ProviderError(
    `Malformed line in the ${server}'s event stream: ${JSON.stringify(shown)}`,
    {
      errorType: HTTP_ERROR_TYPES.malformed,
      details: { line: shown },
      ...(requestId ? { requestId } : {}),
    },
  )
}
