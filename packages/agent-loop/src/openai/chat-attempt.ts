import { TIMED_OUT, within } from '@contextkit/core'
import type { ProviderEvent } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import { connectionError, httpError } from '../provider/http-errors.js'
import { asContextTooLong } from '../provider/overflow.js'
import type { AttemptOutcome } from '../provider/retry.js'
import { SseReader } from '../provider/sse-reader.js'
import { CHAT_SERVER, ChatAssembler } from './chat-chunks.js'

/** One HTTP exchange: where, what, and how long to wait for silence. */
export interface ChatAttemptOptions {
  url: string
  headers: Record<string, string>
  body: string
  signal: AbortSignal
  idleTimeoutMs: number
  fetch: typeof fetch
}

function stalled(ms: number, requestId: string | undefined): ProviderError {
  return new ProviderError(`The ${CHAT_SERVER} sent nothing for ${ms} ms`, {
    errorType: 'idle_timeout',
    retryable: true,
    ...(requestId ? { requestId } : {}),
  })
}

function incomplete(
  message: string,
  requestId: string | undefined,
  cause?: unknown,
): ProviderError {
  return new ProviderError(message, {
    errorType: 'incomplete_stream',
    retryable: true,
    ...(cause === undefined ? {} : { cause }),
    ...(requestId ? { requestId } : {}),
  })
}

/**
 * OpenAI-style bodies carry the precise kind in `error.code` (`context_length_exceeded`,
 * `rate_limit_exceeded`) beside a generic `error.type`: the code becomes the `errorType`.
 */
function withErrorCode(error: ProviderError): ProviderError {
  const body = error.body as { error?: { code?: unknown } } | undefined
  const code = body?.error?.code
  if (typeof code !== 'string' || code === '') return error
  return new ProviderError(error.message, {
    ...(error.status === undefined ? {} : { status: error.status }),
    errorType: code,
    retryable: error.retryable,
    body: error.body,
    ...(error.requestId ? { requestId: error.requestId } : {}),
    details: error.details,
  })
}

/** `retry-after-ms`, else `retry-after` in seconds, as milliseconds. */
function retryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms'))
  if (Number.isFinite(ms) && ms >= 0 && headers.has('retry-after-ms')) return ms
  const s = Number(headers.get('retry-after'))
  if (Number.isFinite(s) && s >= 0 && headers.has('retry-after')) return s * 1000
  return undefined
}

/** A non-2xx answer as a failed attempt, with the server's `retry-after` when it gave one. */
async function refused(
  o: ChatAttemptOptions,
  response: Response,
  requestId: string | undefined,
): Promise<AttemptOutcome> {
  const text = await response.text().catch(() => '')
  const error = asContextTooLong(
    withErrorCode(httpError(o.url, response.status, text, requestId, CHAT_SERVER)),
  )
  const wait = retryAfter(response.headers)
  return { kind: 'failed', error, ...(wait === undefined ? {} : { retryAfterMs: wait }) }
}

/** A server that answered the whole completion at once (no event stream). */
async function* readWhole(
  response: Response,
  assembler: ChatAssembler,
  requestId: string | undefined,
): AsyncGenerator<ProviderEvent, AttemptOutcome> {
  yield* assembler.data(await response.text())
  if (assembler.error) return { kind: 'failed', error: assembler.error }
  yield* assembler.finish(requestId)
  return { kind: 'finished' }
}

/**
 * The event stream of a `200` answer, chunk by chunk until the assembler has the whole reply; a
 * silence longer than `idleTimeoutMs`, a malformed line or an end before a `finish_reason` fails
 * the attempt (retryably).
 */
async function* readEvents(
  o: ChatAttemptOptions,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  assembler: ChatAssembler,
  requestId: string | undefined,
): AsyncGenerator<ProviderEvent, AttemptOutcome> {
  const sse = new SseReader()
  while (!assembler.complete) {
    const read = reader.read()
    const next = await within(read, o.idleTimeoutMs)
    if (next === TIMED_OUT) {
      read.catch(() => undefined)
      return { kind: 'failed', error: stalled(o.idleTimeoutMs, requestId) }
    }
    for (const item of next.done ? sse.end() : sse.push(next.value)) {
      if (item.kind === 'invalid') {
        const error = incomplete(`Malformed SSE line: ${item.line.slice(0, 200)}`, requestId)
        return { kind: 'failed', error }
      }
      for (const event of assembler.data(item.data)) yield event
      if (assembler.error) return { kind: 'failed', error: assembler.error }
      if (assembler.complete) break
    }
    if (o.signal.aborted) return { kind: 'aborted' }
    if (next.done) break
  }
  if (!assembler.finished) {
    const error = incomplete(`The ${CHAT_SERVER}'s stream ended before a finish_reason`, requestId)
    return { kind: 'failed', error }
  }
  yield* assembler.finish(requestId)
  return { kind: 'finished' }
}

/**
 * One `POST …/chat/completions` with `stream: true`, its chunks mapped to provider events as they
 * come. A wait longer than `idleTimeoutMs` for the response or its next bytes ends the attempt as a
 * retryable `idle_timeout` failure; the signal aborts it at once.
 */
export async function* chatAttempt(
  o: ChatAttemptOptions,
): AsyncGenerator<ProviderEvent, AttemptOutcome> {
  if (o.signal.aborted) return { kind: 'aborted' }
  const controller = new AbortController()
  const signal = AbortSignal.any([o.signal, controller.signal])
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  try {
    const pending = o.fetch(o.url, { method: 'POST', headers: o.headers, body: o.body, signal })
    const response = await within(pending, o.idleTimeoutMs)
    if (response === TIMED_OUT) {
      pending.catch(() => undefined)
      return { kind: 'failed', error: stalled(o.idleTimeoutMs, undefined) }
    }
    const requestId =
      response.headers.get('x-request-id') ?? response.headers.get('request-id') ?? undefined
    if (!response.ok) return await refused(o, response, requestId)
    const assembler = new ChatAssembler(requestId)
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream'))
      return yield* readWhole(response, assembler, requestId)
    reader = response.body?.getReader()
    if (!reader) return { kind: 'failed', error: incomplete('The response had no body', requestId) }
    return yield* readEvents(o, reader, assembler, requestId)
  } catch (thrown) {
    if (o.signal.aborted) return { kind: 'aborted' }
    if (reader) {
      const error = incomplete(`The ${CHAT_SERVER}'s stream broke off`, undefined, thrown)
      return { kind: 'failed', error }
    }
    return { kind: 'failed', error: connectionError(o.url, thrown, CHAT_SERVER) }
  } finally {
    reader?.cancel().catch(() => undefined)
    controller.abort()
  }
}
