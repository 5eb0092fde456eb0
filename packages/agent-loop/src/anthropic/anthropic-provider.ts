import type Anthropic from '@anthropic-ai/sdk'
import { parseWith } from '@contextkit/core'
import * as z from 'zod'
import { ProviderError } from '../errors.js'
import type { ModelProvider, ProviderEvent } from '../provider.js'
import { toProviderError } from './provider-errors.js'
import { toStreamParams } from './request-params.js'
import { AnthropicEventMapper } from './stream-events.js'

/** Options of {@link anthropicProvider}. */
export interface AnthropicProviderOptions {
  /**
   * An `@anthropic-ai/sdk` client (`new Anthropic({ apiKey, baseURL, maxRetries })`). The SDK
   * retries failed HTTP requests itself (429, 5xx, 529; its `maxRetries`, default 2): configure it
   * there. The provider only retries what the SDK does not: a `200` stream that fails mid-way.
   */
  client: Pick<Anthropic, 'messages'>
  /** Retries of a stream that failed mid-way (`event: error` overloaded/api error, a dropped connection). Default `2`. */
  maxStreamRetries?: number
  /** Delay before the first such retry, in ms; doubled per retry, with ±25 % jitter. Default `500`. */
  retryDelayMs?: number
  /** Longest delay between retries, in ms. Default `8000`. */
  maxRetryDelayMs?: number
  /** Random source for the jitter, in [0, 1). Default `Math.random`. */
  random?: () => number
}

const OptionsSchema = z.object({
  client: z.custom<Pick<Anthropic, 'messages'>>(
    (c) =>
      typeof c === 'object' &&
      c !== null &&
      typeof (c as { messages?: { create?: unknown } }).messages?.create === 'function',
    'expected an Anthropic client (with messages.create)',
  ),
  maxStreamRetries: z.number().int().nonnegative().optional(),
  retryDelayMs: z.number().nonnegative().optional(),
  maxRetryDelayMs: z.number().nonnegative().optional(),
  random: z.custom<() => number>((v) => typeof v === 'function').optional(),
})

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

function abortedError(): ProviderError {
  return new ProviderError('The request was aborted', { errorType: 'aborted' })
}

/**
 * A `ModelProvider` for the Anthropic Messages API through `@anthropic-ai/sdk` (an optional peer
 * dependency, loaded only by this subpath): streams `client.messages.create({ stream: true })`
 * and maps its raw events — text, thinking with signatures, native `tool_use` with partial JSON,
 * usage with the cache counters, the stop reason. A stream that fails after it started (an
 * `event: error` such as `overloaded_error`, or a reset connection), which the SDK does not
 * retry, is sent again up to `maxStreamRetries` times with exponential backoff and jitter,
 * reporting a `retry` event first (the loop discards the partial reply, so no tool of it runs);
 * the wait ends at once on abort. Every failure is a typed `ProviderError` event.
 */
export function anthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const parsed = parseWith(OptionsSchema, options, 'anthropicProvider options')
  const client = options.client
  const maxRetries = parsed.maxStreamRetries ?? 2
  const baseDelay = parsed.retryDelayMs ?? 500
  const maxDelay = parsed.maxRetryDelayMs ?? 8000
  const random = options.random ?? Math.random
  const backoff = (attempt: number): number => {
    const delay = Math.min(maxDelay, baseDelay * 2 ** attempt)
    return Math.round(delay * (0.75 + random() * 0.5))
  }

  return {
    name: 'anthropic',
    async *stream(request, { signal }): AsyncGenerator<ProviderEvent> {
      let params: ReturnType<typeof toStreamParams>
      try {
        params = toStreamParams(request)
      } catch (error) {
        yield { type: 'error', error: toProviderError(error, false) }
        return
      }
      for (let attempt = 0; ; attempt++) {
        let midStream = false
        try {
          const { data: stream, request_id } = await client.messages
            .create(params, { signal })
            .withResponse()
          midStream = true
          const mapper = new AnthropicEventMapper()
          for await (const event of stream) yield* mapper.map(event)
          if (!mapper.stopped) {
            throw new ProviderError('The stream ended before message_stop', {
              errorType: 'incomplete_stream',
              retryable: true,
              ...(request_id ? { requestId: request_id } : {}),
            })
          }
          yield mapper.finish(request_id ?? undefined)
          return
        } catch (thrown) {
          if (signal.aborted) {
            yield { type: 'error', error: abortedError() }
            return
          }
          const error = toProviderError(thrown, midStream)
          if (!error.retryable || attempt >= maxRetries) {
            yield { type: 'error', error }
            return
          }
          const delayMs = backoff(attempt)
          yield { type: 'retry', attempt: attempt + 1, delayMs, error }
          await sleep(delayMs, signal)
          if (signal.aborted) {
            yield { type: 'error', error: abortedError() }
            return
          }
        }
      }
    },
  }
}
