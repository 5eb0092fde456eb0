import type Anthropic from '@anthropic-ai/sdk'
import { TIMED_OUT, within } from '@contextkit/core'
import type { ProviderEvent } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import type { AttemptOutcome } from '../provider/retry.js'
import { toProviderError } from './provider-errors.js'
import type { AnthropicStreamParams } from './request-params.js'
import { AnthropicEventMapper } from './stream-events.js'

/** Settings of one attempt. */
export interface AttemptOptions {
  /** The run's signal. */
  signal: AbortSignal
  /** Longest wait for the next stream event once the response started, in ms. */
  idleTimeoutMs: number
  /** The SDK's own retries of this request (HTTP 408/409/429/5xx, connection errors). */
  maxRetries: number | undefined
}

/**
 * The raw events of a started stream mapped to provider events until `message_stop`; a silence
 * longer than `idleTimeoutMs` aborts the request (`controller`) and fails retryably, as does an
 * end before `message_stop`.
 */
async function* readEvents(
  stream: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  o: {
    signal: AbortSignal
    idleTimeoutMs: number
    controller: AbortController
    requestId?: string
  },
): AsyncGenerator<ProviderEvent, AttemptOutcome> {
  const requestId = o.requestId ? { requestId: o.requestId } : {}
  const mapper = new AnthropicEventMapper()
  const events = stream[Symbol.asyncIterator]()
  while (true) {
    const pending = events.next()
    const next = await within(pending, o.idleTimeoutMs)
    if (next === TIMED_OUT) {
      pending.catch(() => undefined)
      o.controller.abort()
      const message = `Anthropic stream stalled: no event for ${o.idleTimeoutMs} ms`
      const error = new ProviderError(message, {
        errorType: 'idle_timeout',
        retryable: true,
        ...requestId,
      })
      return { kind: 'failed', error }
    }
    if (next.done) break
    for (const event of mapper.map(next.value)) yield event
    if (o.signal.aborted) return { kind: 'aborted' }
  }
  if (!mapper.stopped) {
    const error = new ProviderError('The stream ended before message_stop', {
      errorType: 'incomplete_stream',
      retryable: true,
      ...requestId,
    })
    return { kind: 'failed', error }
  }
  yield mapper.finish(o.requestId)
  return { kind: 'finished' }
}

/**
 * One `client.messages.create({ stream: true })` call, its raw events mapped to provider events
 * as they come. A wait longer than `idleTimeoutMs` for the next event aborts the call and ends
 * it as a retryable `idle_timeout` failure; the run's signal aborts it at once. A failure before
 * the response started is `final`: the SDK has retried it already.
 */
export async function* streamAttempt(
  client: Pick<Anthropic, 'messages'>,
  params: AnthropicStreamParams,
  options: AttemptOptions,
): AsyncGenerator<ProviderEvent, AttemptOutcome> {
  const { signal, idleTimeoutMs } = options
  if (signal.aborted) return { kind: 'aborted' }
  // aborted by a stall or when the attempt ends; the request also ends with the run's signal
  const controller = new AbortController()
  const requestSignal = AbortSignal.any([signal, controller.signal])
  let started = false
  let requestId: string | undefined
  try {
    const { data: stream, request_id } = await client.messages
      .create(params, {
        signal: requestSignal,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      })
      .withResponse()
    started = true
    requestId = request_id ?? undefined
    return yield* readEvents(stream, { signal, idleTimeoutMs, controller, requestId })
  } catch (thrown) {
    if (signal.aborted) return { kind: 'aborted' }
    return {
      kind: 'failed',
      error: toProviderError(thrown, {
        midStream: started,
        requestId,
        baseURL: (client as { baseURL?: string }).baseURL,
      }),
      // before the response started the SDK has retried already: never twice
      final: !started,
    }
  } finally {
    // stop the body of a stream that was left early (a stall, the consumer returned)
    controller.abort()
  }
}
