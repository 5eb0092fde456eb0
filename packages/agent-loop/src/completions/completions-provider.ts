import { parseWith } from '@contextkit/core'
import * as z from 'zod'
import type { ModelProvider, ProviderEvent } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import { HTTP_ERROR_TYPES } from '../provider/http-errors.js'
import { abortedProviderError } from '../provider/retry.js'
import { completionExchange, type Exchange } from './completion-exchange.js'

/** Options of {@link openAICompatibleCompletionsProvider}. */
export interface OpenAICompatibleCompletionsProviderOptions {
  /**
   * The server's OpenAI-compatible base URL, up to and including `/v1`
   * (`http://127.0.0.1:8080/v1` for llama.cpp, `http://127.0.0.1:8000/v1` for vLLM,
   * `http://127.0.0.1:11434/v1` for Ollama, `http://127.0.0.1:1234/v1` for LM Studio).
   * Requests go to `{baseURL}/completions`.
   */
  baseURL: string
  /** Sent as `Authorization: Bearer <apiKey>`. Default: no header (local servers need none). */
  apiKey?: string
  /** The `model` field. Default: the run's model id. */
  model?: string
  /**
   * Stop sequences sent to the server (OpenAI's API takes at most four); every one of the
   * formatter's stop sequences is also applied to the streamed text here. Default `4`.
   */
  maxStopSequences?: number
  /** Longest wait for the response or its next bytes, in ms. Default `600000` (a long prompt on a CPU is slow to start). */
  idleTimeoutMs?: number
  /** More request headers. Default: none. */
  headers?: Record<string, string>
  /** More body fields (`temperature`, `top_p`, `seed`, …), merged under the provider's own. Default: none. */
  extraBody?: Record<string, unknown>
  /** The `fetch` to use. Default: the global `fetch`. */
  fetch?: typeof fetch
}

const OptionsSchema = z.strictObject({
  baseURL: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  maxStopSequences: z.number().int().nonnegative().optional(),
  idleTimeoutMs: z.number().positive().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  extraBody: z.record(z.string(), z.unknown()).optional(),
  fetch: z
    .custom<typeof fetch>((v) => typeof v === 'function', 'expected a fetch function')
    .optional(),
})

/**
 * A `ModelProvider` for local and hosted OpenAI-compatible text-completion servers (llama.cpp,
 * vLLM, Ollama, LM Studio): sends a prompt-string request — `ChatMLFormatter` or
 * `CompletionsFormatter` — to `POST {baseURL}/completions` with the formatter's stop sequences,
 * streams the answer (SSE `data:` lines up to `[DONE]`), and reports its text; the loop's
 * formatter parser turns that text into thinking and tool calls (Qwen `<tool_call>` JSON).
 * `finish_reason` maps to core stop reasons (`stop` → `end_turn`, `length` → `max_tokens`,
 * `content_filter` → `refusal`; a stop sequence → `stop_sequence`). Plain `fetch`, no SDK.
 *
 * Every failure ends the stream with one typed `ProviderError` carrying the server's own message:
 * connection refused (`connection`), a non-2xx answer (`status`, the body's `error.type` or
 * `http_<status>`), an error object inside the stream, a malformed SSE line (`malformed_sse`), a
 * body cut short (`incomplete_stream`), a silence past `idleTimeoutMs` (`idle_timeout`). It does
 * not retry.
 */
export function openAICompatibleCompletionsProvider(
  options: OpenAICompatibleCompletionsProviderOptions,
): ModelProvider {
  const parsed = parseWith(OptionsSchema, options, 'openAICompatibleCompletionsProvider options')
  const maxStops = parsed.maxStopSequences ?? 4
  const exchange: Exchange = {
    url: `${parsed.baseURL.replace(/\/+$/, '')}/completions`,
    idleMs: parsed.idleTimeoutMs ?? 600_000,
    doFetch: options.fetch ?? globalThis.fetch,
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      ...(parsed.apiKey ? { authorization: `Bearer ${parsed.apiKey}` } : {}),
      ...parsed.headers,
    },
    body: (request) => {
      const stops = request.stopSequences.slice(0, maxStops)
      return {
        ...parsed.extraBody,
        model: parsed.model ?? request.model.id,
        prompt: request.prompt,
        max_tokens: request.maxTokens,
        stream: true,
        stream_options: { include_usage: true },
        ...(stops.length > 0 ? { stop: stops } : {}),
      }
    },
  }

  return {
    name: 'openai-completions',
    system: 'openai',
    baseUrl: parsed.baseURL,
    outputMode: 'prompt',
    async *stream(request, { signal }): AsyncGenerator<ProviderEvent> {
      if (request.prompt === undefined) {
        const error = new ProviderError(
          'The completions provider sends a prompt string; a chat format (NativeFormatter, AnthropicXmlFormatter) needs a chat provider such as anthropicProvider',
          { errorType: HTTP_ERROR_TYPES.unsupported },
        )
        yield { type: 'error', error }
        return
      }
      if (signal.aborted) {
        yield { type: 'error', error: abortedProviderError() }
        return
      }
      // the request ends with the run's signal, or when this generator ends (read or not)
      const done = new AbortController()
      try {
        yield* completionExchange(exchange, request, signal, AbortSignal.any([signal, done.signal]))
      } finally {
        done.abort()
      }
    },
  }
}
