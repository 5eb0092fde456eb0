import { parseWith } from '@contextkit/core'
import * as z from 'zod'
import type { ModelProvider, ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import { withRetries } from '../provider/retry.js'
import { chatToolChoice } from '../provider/tool-choice.js'
import { chatAttempt } from './chat-attempt.js'
import { type ChatBodyWarning, toChatMessages, toChatTools } from './chat-body.js'

/** Options of {@link openAIChatProvider}. */
export interface OpenAIChatProviderOptions {
  /**
   * Base URL up to and including `/v1`, as the OpenAI SDK takes it. Requests go to
   * `{baseURL}/chat/completions`. Local servers: `http://127.0.0.1:8080/v1` (llama.cpp),
   * `http://127.0.0.1:8000/v1` (vLLM), `http://127.0.0.1:11434/v1` (Ollama),
   * `http://127.0.0.1:1234/v1` (LM Studio). Default `https://api.openai.com/v1`.
   */
  baseURL?: string
  /** Sent as `Authorization: Bearer <apiKey>`. Default: `OPENAI_API_KEY` from the environment when there is one, else no header. */
  apiKey?: string
  /** The `model` field. Default: the run's model id. */
  model?: string
  /** The `fetch` to use. Default: the global `fetch`. */
  fetch?: typeof fetch
  /** More request headers. Default: none. */
  headers?: Record<string, string>
  /**
   * More body fields (`temperature`, `seed`, `reasoning_effort`, …), applied over the provider's
   * own: a field given here replaces the provider's, and one given as `undefined` removes it.
   * Default: none.
   */
  extraBody?: Record<string, unknown>
  /**
   * The field the reply size goes in. Default: the model's `maxTokensParam` (core `ModelInfo`),
   * else `max_completion_tokens` for OpenAI's reasoning models (ids `o1`, `o3`, `o4-mini`, …,
   * `gpt-5…`), which refuse `max_tokens`, and `max_tokens` for every other model.
   */
  maxTokensParam?: MaxTokensParam
  /** Retries of a failed request or stream (HTTP 408/409/429/5xx, a refused or dropped connection, a stall). Default `2`. */
  maxRetries?: number
  /** Delay before the first retry, in ms; doubled per retry with ±25 % jitter (a server's `retry-after` wins). Default `500`. */
  retryDelayMs?: number
  /** Longest delay between retries, in ms. Default `8000`. */
  maxRetryDelayMs?: number
  /** Longest wait for the response or its next bytes, in ms. Default `600000` (a long prompt on a CPU is slow to start). */
  idleTimeoutMs?: number
  /** At most this many stop sequences are sent (OpenAI takes 4). Default `4`. */
  maxStopSequences?: number
  /** Random source for the jitter, in [0, 1). Default `Math.random`. */
  random?: () => number
}

/** Defaults of {@link openAIChatProvider}'s options. */
export const OPENAI_CHAT_PROVIDER_DEFAULTS = Object.freeze({
  baseURL: 'https://api.openai.com/v1',
  maxRetries: 2,
  retryDelayMs: 500,
  maxRetryDelayMs: 8000,
  idleTimeoutMs: 600_000,
  maxStopSequences: 4,
})

const OptionsSchema = z.strictObject({
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  fetch: z
    .custom<typeof fetch>((v) => typeof v === 'function', 'expected a fetch function')
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  extraBody: z.record(z.string(), z.unknown()).optional(),
  maxTokensParam: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  retryDelayMs: z.number().nonnegative().optional(),
  maxRetryDelayMs: z.number().nonnegative().optional(),
  idleTimeoutMs: z.number().positive().optional(),
  maxStopSequences: z.number().int().nonnegative().optional(),
  random: z.custom<() => number>((v) => typeof v === 'function', 'expected a function').optional(),
})

function environmentKey(): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env
  const key = env?.OPENAI_API_KEY
  return key === undefined || key === '' ? undefined : key
}

type Parsed = z.infer<typeof OptionsSchema>

function chatBody(
  request: ProviderRequest,
  parsed: Parsed,
  warn: (w: ChatBodyWarning) => void,
): Record<string, unknown> {
  const stops = request.stopSequences.slice(0, parsed.maxStopSequences ?? 4)
  const tools = toChatTools(request)
  const body: Record<string, unknown> = {
    model: parsed.model ?? request.model.id,
    messages: toChatMessages(request, warn),
    [maxTokensParamOf(request, parsed)]: request.maxTokens,
    stream: true,
    stream_options: { include_usage: true },
    ...(tools ? { tools } : {}),
    ...(tools && request.toolChoice ? { tool_choice: chatToolChoice(request.toolChoice) } : {}),
    ...(stops.length > 0 ? { stop: stops } : {}),
    ...(request.responseFormat
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: {
              name: request.responseFormat.name,
              schema: request.responseFormat.schema,
              strict: true,
            },
          },
        }
      : {}),
  }
  return withExtraBody(body, parsed.extraBody)
}

/** `extraBody` over the provider's `body`: its fields replace the provider's; `undefined` removes one. */
function withExtraBody(
  body: Record<string, unknown>,
  extra: Record<string, unknown> | undefined,
): Record<string, unknown> {
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (value === undefined) delete body[key]
    else body[key] = value
  }
  return body
}

/** The field the reply size is sent in. */
export type MaxTokensParam = 'max_tokens' | 'max_completion_tokens'

/** OpenAI's reasoning models: the o-series (`o1`, `o3-mini`, `o4-mini`, …) and the gpt-5 family. */
const REASONING_MODEL = /^(?:[\w.-]+\/)?(?:o\d+(?:$|-)|gpt-5(?:$|[.-]))/i

/** The option, else the model's capability, else the reasoning-model rule by id. */
function maxTokensParamOf(request: ProviderRequest, parsed: Parsed): MaxTokensParam {
  if (parsed.maxTokensParam) return parsed.maxTokensParam
  if (request.model.maxTokensParam) return request.model.maxTokensParam
  const id = parsed.model ?? request.model.id
  return REASONING_MODEL.test(id) ? 'max_completion_tokens' : 'max_tokens'
}

/**
 * A `ModelProvider` for OpenAI's chat completions API and every server that speaks it (vLLM,
 * llama.cpp, Ollama, LM Studio, and the gateways in front of hosted models): sends the
 * formatter's request (use `NativeFormatter`, the default, so tools go as native `tools`) to
 * `POST {baseURL}/chat/completions` with `stream: true` and `stream_options.include_usage`, and
 * maps the chunks — text, `reasoning_content` as thinking, tool calls streamed in pieces (several
 * interleaved by `index`), usage with `prompt_tokens_details.cached_tokens` as cache reads — to
 * provider events. `finish_reason` maps as {@link CHAT_FINISH_REASONS} says. Plain `fetch` and
 * `eventsource-parser`; no SDK.
 *
 * A failed request or stream that may succeed again (HTTP 408/409/429/5xx, a refused or dropped
 * connection, a stall past `idleTimeoutMs`) is sent again up to `maxRetries` times with backoff
 * (the server's `retry-after` first), after a `retry` event (the loop throws the partial reply
 * away, so no tool of it runs); abort ends the wait at once. Every failure ends the stream with
 * one typed `ProviderError` carrying the server's own message and error type — a prompt over the
 * window is `errorType: 'context_length_exceeded'`, as OpenAI-style servers say it.
 */
export function openAIChatProvider(options: OpenAIChatProviderOptions = {}): ModelProvider {
  const parsed = parseWith(OptionsSchema, options, 'openAIChatProvider options')
  const d = OPENAI_CHAT_PROVIDER_DEFAULTS
  const url = `${(parsed.baseURL ?? d.baseURL).replace(/\/+$/, '')}/chat/completions`
  const apiKey = parsed.apiKey ?? environmentKey()
  const maxRetries = parsed.maxRetries ?? d.maxRetries
  const baseDelay = parsed.retryDelayMs ?? d.retryDelayMs
  const maxDelay = parsed.maxRetryDelayMs ?? d.maxRetryDelayMs
  const idleTimeoutMs = parsed.idleTimeoutMs ?? d.idleTimeoutMs
  const random = options.random ?? Math.random
  const doFetch = options.fetch ?? globalThis.fetch
  const headers = {
    'content-type': 'application/json',
    accept: 'text/event-stream, application/json',
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    ...parsed.headers,
  }
  const policy = { maxRetries, baseDelayMs: baseDelay, maxDelayMs: maxDelay, random }

  return {
    name: 'openai-chat',
    system: 'openai',
    baseUrl: parsed.baseURL ?? d.baseURL,
    outputMode: 'json-schema',
    async *stream(request, { signal }): AsyncGenerator<ProviderEvent> {
      if (request.prompt !== undefined && request.messages.length === 0) {
        const error = new ProviderError(
          'The chat provider sends chat messages; a prompt-string format (ChatMLFormatter, CompletionsFormatter) needs openAICompatibleCompletionsProvider',
          { errorType: 'unsupported_request' },
        )
        yield { type: 'error', error }
        return
      }
      const warnings: ChatBodyWarning[] = []
      const body = JSON.stringify(chatBody(request, parsed, (w) => warnings.push(w)))
      for (const w of warnings) yield { type: 'warning', code: w.code, message: w.message }
      const attempt = () =>
        chatAttempt({ url, headers, body, signal, idleTimeoutMs, fetch: doFetch })
      yield* withRetries(attempt, policy, signal)
    },
  }
}
