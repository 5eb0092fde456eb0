import { parseWith, TIMED_OUT, within } from '@contextkit/core'
import * as z from 'zod'
import { ProviderError } from '../errors.js'
import type { ModelProvider, ProviderEvent, ProviderRequest } from '../provider.js'
import { abortedProviderError } from '../provider-retry.js'
import { CompletionAssembler } from './completion-chunks.js'
import {
  COMPLETIONS_ERROR_TYPES,
  connectionError,
  httpError,
  malformedError,
} from './completion-errors.js'
import { SseReader } from './sse-reader.js'

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

function stalled(ms: number, requestId: string | undefined): ProviderError {
  return new ProviderError(`The completions server sent nothing for ${ms} ms`, {
    errorType: COMPLETIONS_ERROR_TYPES.idle,
    retryable: true,
    ...(requestId ? { requestId } : {}),
  })
}

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
  const url = `${parsed.baseURL.replace(/\/+$/, '')}/completions`
  const maxStops = parsed.maxStopSequences ?? 4
  const idleMs = parsed.idleTimeoutMs ?? 600_000
  const doFetch = options.fetch ?? globalThis.fetch

  const body = (request: ProviderRequest): Record<string, unknown> => {
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
  }

  return {
    name: 'openai-completions',
    async *stream(request, { signal }): AsyncGenerator<ProviderEvent> {
      if (request.prompt === undefined) {
        const error = new ProviderError(
          'The completions provider sends a prompt string; a chat format (NativeFormatter, AnthropicXmlFormatter) needs a chat provider such as anthropicProvider',
          { errorType: COMPLETIONS_ERROR_TYPES.unsupported },
        )
        yield { type: 'error', error }
        return
      }
      if (signal.aborted) {
        yield { type: 'error', error: abortedProviderError() }
        return
      }
      const controller = new AbortController()
      const onAbort = (): void => controller.abort(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      try {
        yield* exchange(request)
      } finally {
        signal.removeEventListener('abort', onAbort)
        controller.abort()
      }

      async function* exchange(req: ProviderRequest): AsyncGenerator<ProviderEvent> {
        const fail = (error: ProviderError): ProviderEvent => ({
          type: 'error',
          error: signal.aborted ? abortedProviderError() : error,
        })
        let response: Response
        try {
          const pending = doFetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'text/event-stream, application/json',
              ...(parsed.apiKey ? { authorization: `Bearer ${parsed.apiKey}` } : {}),
              ...parsed.headers,
            },
            body: JSON.stringify(body(req)),
            signal: controller.signal,
          })
          const answer = await within(pending, idleMs)
          if (answer === TIMED_OUT) {
            pending.catch(() => undefined)
            yield fail(stalled(idleMs, undefined))
            return
          }
          response = answer
        } catch (thrown) {
          yield fail(connectionError(url, thrown))
          return
        }
        const requestId =
          response.headers.get('x-request-id') ?? response.headers.get('request-id') ?? undefined
        if (!response.ok) {
          const text = await response.text().catch(() => '')
          yield fail(httpError(url, response.status, text, requestId))
          return
        }
        const assembler = new CompletionAssembler(req.stopSequences, requestId)
        const type = response.headers.get('content-type') ?? ''
        if (!type.includes('text/event-stream')) {
          // a server that answered the whole completion at once
          const text = await response.text().catch(() => '')
          let whole: unknown
          try {
            whole = JSON.parse(text)
          } catch {
            yield fail(
              new ProviderError(
                `The completions server answered ${type || 'no content type'}, not an event stream: ${text.slice(0, 200)}`,
                {
                  errorType: COMPLETIONS_ERROR_TYPES.badResponse,
                  ...(requestId ? { requestId } : {}),
                },
              ),
            )
            return
          }
          yield* assembler.chunk(whole)
          if (assembler.error) yield fail(assembler.error)
          else yield* assembler.finish()
          return
        }
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
              yield fail(stalled(idleMs, requestId))
              return
            }
            const items = next.done ? sse.end() : sse.push(next.value)
            for (const item of items) {
              if (item.kind === 'invalid') {
                yield fail(malformedError(item.line, requestId))
                return
              }
              yield* assembler.data(item.data)
              if (assembler.error) {
                yield fail(assembler.error)
                return
              }
              if (assembler.complete) break
            }
            if (next.done) break
          }
        } catch (thrown) {
          if (signal.aborted) {
            yield fail(abortedProviderError())
            return
          }
          yield fail(
            new ProviderError(
              `The completions stream broke off: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
              {
                cause: thrown,
                errorType: COMPLETIONS_ERROR_TYPES.incomplete,
                retryable: true,
                ...(requestId ? { requestId } : {}),
              },
            ),
          )
          return
        } finally {
          reader.cancel().catch(() => undefined)
        }
        if (!assembler.finished) {
          yield fail(
            new ProviderError('The completions stream ended before [DONE] or a finish_reason', {
              errorType: COMPLETIONS_ERROR_TYPES.incomplete,
              retryable: true,
              ...(requestId ? { requestId } : {}),
            }),
          )
          return
        }
        yield* assembler.finish()
      }
    },
  }
}
