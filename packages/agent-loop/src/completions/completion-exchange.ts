import { TIMED_OUT, within } from '@contextkit/core'
import type { ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import {
  connectionError,
  HTTP_ERROR_TYPES,
  httpError,
  malformedError,
} from '../provider/http-errors.js'
import { asContextTooLong } from '../provider/overflow.js'
import { abortedProviderError } from '../provider/retry.js'
import { SseReader } from '../provider/sse-reader.js'
import { CompletionAssembler } from './completion-chunks.js'

/** What one completions request needs: where, how long to wait, headers and the body. */
export interface Exchange {
  url: string
  idleMs: number
  doFetch: typeof fetch
  headers: Record<string, string>
  body(request: ProviderRequest): Record<string, unknown>
}

function stalled(ms: number, requestId: string | undefined): ProviderError {
  return new ProviderError(`The completions server sent nothing for ${ms} ms`, {
    errorType: HTTP_ERROR_TYPES.idle,
    retryable: true,
    ...(requestId ? { requestId } : {}),
  })
}

function withRequestId(requestId: string | undefined): { requestId?: string } {
  return requestId ? { requestId } : {}
}

/**
 * One request to `{baseURL}/completions` and its answer as provider events: the response (or a
 * typed error for a refused connection, a silence, a non-2xx status), then the answer, whole or
 * streamed. Every failure is one `error` event; an abort (`signal`) always reads as `aborted`.
 */
export async function* completionExchange(
  exchange: Exchange,
  request: ProviderRequest,
  signal: AbortSignal,
  fetchSignal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const fail = (error: ProviderError): ProviderEvent => ({
    type: 'error',
    error: signal.aborted ? abortedProviderError() : error,
  })
  const response = await post(exchange, request, fetchSignal)
  if (response instanceof ProviderError) {
    yield fail(response)
    return
  }
  const requestId =
    response.headers.get('x-request-id') ?? response.headers.get('request-id') ?? undefined
  if (!response.ok) {
    const text = await response.text().catch(() => '')
    yield fail(asContextTooLong(httpError(exchange.url, response.status, text, requestId)))
    return
  }
  const assembler = new CompletionAssembler(request.stopSequences, requestId)
  const type = response.headers.get('content-type') ?? ''
  const answer = type.includes('text/event-stream')
    ? streamedAnswer(response, assembler, exchange.idleMs, requestId, signal)
    : wholeAnswer(response, type, assembler, requestId)
  for await (const event of answer) {
    yield event.type === 'error' ? fail(event.error) : event
    if (event.type === 'error') return
  }
}

/** Send the request; the response, or the typed error of a refused connection or a silence. */
async function post(
  exchange: Exchange,
  request: ProviderRequest,
  signal: AbortSignal,
): Promise<Response | ProviderError> {
  try {
    const pending = exchange.doFetch(exchange.url, {
      method: 'POST',
      headers: exchange.headers,
      body: JSON.stringify(exchange.body(request)),
      signal,
    })
    const answer = await within(pending, exchange.idleMs)
    if (answer !== TIMED_OUT) return answer
    pending.catch(() => undefined)
    return stalled(exchange.idleMs, undefined)
  } catch (thrown) {
    return connectionError(exchange.url, thrown)
  }
}

/** A server that answered the whole completion at once (JSON, not an event stream). */
async function* wholeAnswer(
  response: Response,
  type: string,
  assembler: CompletionAssembler,
  requestId: string | undefined,
): AsyncGenerator<ProviderEvent> {
  const text = await response.text().catch(() => '')
  let whole: unknown
  try {
    whole = JSON.parse(text)
  } catch {
    const error = new ProviderError(
      `The completions server answered ${type || 'no content type'}, not an event stream: ${text.slice(0, 200)}`,
      { errorType: HTTP_ERROR_TYPES.badResponse, ...withRequestId(requestId) },
    )
    yield { type: 'error', error }
    return
  }
  yield* assembler.chunk(whole)
  if (assembler.error) yield { type: 'error', error: assembler.error }
  else yield* assembler.finish()
}

/** An SSE answer, read with an idle limit between chunks, up to `[DONE]` or a finish reason. */
async function* streamedAnswer(
  response: Response,
  assembler: CompletionAssembler,
  idleMs: number,
  requestId: string | undefined,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const reader = response.body?.getReader()
  if (!reader) {
    yield* assembler.finish()
    return
  }
  const sse = new SseReader()
  try {
    while (!assembler.complete) {
      const pending = reader.read()
      const next = await within(pending, idleMs)
      if (next === TIMED_OUT) {
        pending.catch(() => undefined)
        yield { type: 'error', error: stalled(idleMs, requestId) }
        return
      }
      for (const item of next.done ? sse.end() : sse.push(next.value)) {
        if (item.kind === 'invalid') {
          yield { type: 'error', error: malformedError(item.line, requestId) }
          return
        }
        yield* assembler.data(item.data)
        if (assembler.error) {
          yield { type: 'error', error: assembler.error }
          return
        }
        if (assembler.complete) break
      }
      if (next.done) break
    }
  } catch (thrown) {
    yield { type: 'error', error: brokenOff(thrown, signal, requestId) }
    return
  } finally {
    reader.cancel().catch(() => undefined)
  }
  if (!assembler.finished) {
    const error = new ProviderError(
      'The completions stream ended before [DONE] or a finish_reason',
      {
        errorType: HTTP_ERROR_TYPES.incomplete,
        retryable: true,
        ...withRequestId(requestId),
      },
    )
    yield { type: 'error', error }
    return
  }
  yield* assembler.finish()
}

/** A stream that broke off mid-way: `aborted` when the run was, else a retryable error. */
function brokenOff(
  thrown: unknown,
  signal: AbortSignal,
  requestId: string | undefined,
): ProviderError {
  if (signal.aborted) return abortedProviderError()
  return new ProviderError(
    `The completions stream broke off: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
    {
      cause: thrown,
      errorType: HTTP_ERROR_TYPES.incomplete,
      retryable: true,
      ...withRequestId(requestId),
    },
  )
}
