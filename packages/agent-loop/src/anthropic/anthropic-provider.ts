import type Anthropic from '@anthropic-ai/sdk'
import { ConfigurationError, parseWith } from '@contextkit/core'
import * as z from 'zod'
import type { ModelProvider, ProviderEvent } from '../provider/contract.js'
import { type RetryPolicy, withRetries } from '../provider/retry.js'
import { ownAnthropicClient } from './own-client.js'
import { toProviderError } from './provider-errors.js'
import {
  type AnthropicStreamParams,
  type RequestWarning,
  toStreamParams,
} from './request-params.js'
import { streamAttempt } from './stream-attempt.js'

/** Options of {@link anthropicProvider}. */
export interface AnthropicProviderOptions {
  /**
   * An `@anthropic-ai/sdk` client (`new Anthropic({ apiKey, baseURL, maxRetries, timeout })`).
   * The SDK retries failed HTTP requests itself (408, 409, 429, 5xx, 529, connection errors; its
   * `maxRetries`, default 2) and its `timeout` bounds the wait for the response: configure both
   * there (or `maxRetries` here). The provider only retries what the SDK does not: a `200`
   * stream that fails or stalls mid-way. Default: a client the provider makes on its first call
   * from `apiKey` and `baseURL` (the SDK must be installed).
   */
  client?: Pick<Anthropic, 'messages'>
  /** The API key of the client the provider makes (not with `client`). Default: `ANTHROPIC_API_KEY`. */
  apiKey?: string
  /**
   * Where the client the provider makes sends requests (not with `client`): a proxy, or the
   * testkit emulator's `emu.url`. Default: `ANTHROPIC_BASE_URL`, else the Anthropic API.
   */
  baseURL?: string
  /** Retries of a stream that failed mid-way (`event: error` overloaded/api error, a dropped connection, a stall). Default `2`. */
  maxStreamRetries?: number
  /** Delay before the first such retry, in ms; doubled per retry, with ±25 % jitter. Default `500`. */
  retryDelayMs?: number
  /** Longest delay between retries, in ms (jitter included). Default `8000`. */
  maxRetryDelayMs?: number
  /** Random source for the jitter, in [0, 1). Default `Math.random`. */
  random?: () => number
  /**
   * Longest wait for the next stream event once the response has started, in ms; a stream
   * silent for longer is aborted and sent again (a `retry` with `errorType: 'idle_timeout'`).
   * Default `60000`.
   */
  idleTimeoutMs?: number
  /**
   * The SDK's own retries of each request (HTTP 408/409/429/5xx/529 and connection errors before
   * the response), passed as its per-request `maxRetries`. Default: the client's setting.
   */
  maxRetries?: number
}

const OptionsSchema = z.strictObject({
  client: z
    .custom<Pick<Anthropic, 'messages'>>(
      (c) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as { messages?: { create?: unknown } }).messages?.create === 'function',
      'expected an Anthropic client (with messages.create)',
    )
    .optional(),
  apiKey: z.string().min(1).optional(),
  baseURL: z.url().optional(),
  maxStreamRetries: z.number().int().nonnegative().optional(),
  retryDelayMs: z.number().nonnegative().optional(),
  maxRetryDelayMs: z.number().nonnegative().optional(),
  random: z.custom<() => number>((v) => typeof v === 'function').optional(),
  idleTimeoutMs: z.number().positive().optional(),
  maxRetries: z.number().int().nonnegative().optional(),
})

/** Defaults of {@link anthropicProvider}'s options. */
export const ANTHROPIC_PROVIDER_DEFAULTS = Object.freeze({
  maxStreamRetries: 2,
  retryDelayMs: 500,
  maxRetryDelayMs: 8000,
  idleTimeoutMs: 60_000,
})

/**
 * A `ModelProvider` for the Anthropic Messages API through `@anthropic-ai/sdk` (an optional peer
 * dependency, loaded only by this subpath): maps the request with {@link toStreamParams}, streams
 * `client.messages.create({ stream: true })` and maps its raw events — text, thinking with
 * signatures, native `tool_use` with partial JSON, usage with the cache counters, the stop
 * reason.
 *
 * HTTP failures are the SDK's to retry (configure its `maxRetries`). A stream that fails after
 * it started — an `event: error` such as `overloaded_error`, a reset connection, or a silence
 * longer than `idleTimeoutMs` — is sent again up to `maxStreamRetries` times with exponential
 * backoff and jitter (the door's `withRetries`, as every provider), reporting a `retry` event first (the loop discards the partial reply, so
 * no tool of it runs); the wait ends at once on abort. Every failure ends the stream with one
 * typed `ProviderError` event (status, error type, request id), never the SDK's own error.
 */
export function anthropicProvider(options: AnthropicProviderOptions = {}): ModelProvider {
  const parsed = parseWith(OptionsSchema, options, 'anthropicProvider options')
  const client = clientSource(parsed)
  const d = ANTHROPIC_PROVIDER_DEFAULTS
  const policy: RetryPolicy = {
    maxRetries: parsed.maxStreamRetries ?? d.maxStreamRetries,
    baseDelayMs: parsed.retryDelayMs ?? d.retryDelayMs,
    maxDelayMs: parsed.maxRetryDelayMs ?? d.maxRetryDelayMs,
    random: options.random ?? Math.random,
  }
  const attempt = {
    idleTimeoutMs: parsed.idleTimeoutMs ?? d.idleTimeoutMs,
    maxRetries: parsed.maxRetries,
  }

  return {
    name: 'anthropic',
    system: 'anthropic',
    ...baseUrlOf(parsed.client ?? { baseURL: parsed.baseURL }),
    outputMode: 'tool',
    async *stream(request, { signal }): AsyncGenerator<ProviderEvent> {
      let params: AnthropicStreamParams
      const warnings: RequestWarning[] = []
      try {
        params = toStreamParams(request, { onWarning: (w) => warnings.push(w) })
      } catch (error) {
        yield { type: 'error', error: toProviderError(error, { midStream: false }) }
        return
      }
      for (const w of warnings) yield { type: 'warning', code: w.code, message: w.message }
      let sdkClient: Pick<Anthropic, 'messages'>
      try {
        sdkClient = await client()
      } catch (error) {
        yield { type: 'error', error: toProviderError(error, { midStream: false }) }
        return
      }
      yield* withRetries(
        () => streamAttempt(sdkClient, params, { signal, ...attempt }),
        policy,
        signal,
      )
    },
  }
}

/** The client's base URL when it has one (a real SDK client does; a stand-in may not). */
function baseUrlOf(client: object): { baseUrl?: string } {
  const url = (client as { baseURL?: unknown }).baseURL
  return typeof url === 'string' ? { baseUrl: url } : {}
}

/**
 * The client of every call: the one given, or one made from `apiKey`/`baseURL` on the first
 * call (the SDK imported then, never when the subpath loads). `client` with either is refused.
 */
function clientSource(
  parsed: z.infer<typeof OptionsSchema>,
): () => Promise<Pick<Anthropic, 'messages'>> {
  const { client, apiKey, baseURL } = parsed
  if (client !== undefined) {
    if (apiKey !== undefined || baseURL !== undefined) {
      throw new ConfigurationError(
        'anthropicProvider options: give `client`, or `apiKey`/`baseURL` for the client it makes, not both (set them on your client)',
      )
    }
    return () => Promise.resolve(client)
  }
  let made: Promise<Pick<Anthropic, 'messages'>> | undefined
  return () => {
    made ??= ownAnthropicClient({ apiKey, baseURL }).catch((error: unknown) => {
      made = undefined // a later call tries again (the SDK installed meanwhile)
      throw error
    })
    return made
  }
}
