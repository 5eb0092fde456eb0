import { invalidArgument } from '@contextkit/core'
import type { ModelProvider, ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { type AttemptOutcome, withRetries } from '../provider/retry.js'
import { aiSdkToolChoice } from '../provider/tool-choice.js'
import { toAiSdkPrompt, toAiSdkTools } from './ai-sdk-prompt.js'
import { AiSdkPartMapper, aiSdkError } from './ai-sdk-stream.js'

/**
 * The part of a Vercel AI SDK `LanguageModel` (spec `v2`, `v3` or `v4`: `ai` 5, 6 and 7
 * providers) this adapter uses. Written structurally, so `@ai-sdk/provider` is needed for types only
 * by those who import it themselves.
 */
export interface AiSdkLanguageModel {
  /** The AI SDK language-model interface version the model implements. */
  readonly specificationVersion: 'v2' | 'v3' | 'v4'
  /** The provider's name, as the AI SDK reports it (e.g. `anthropic.messages`). */
  readonly provider: string
  /** The model id the requests go to. */
  readonly modelId: string
  /** Start one streamed call; resolves a stream of the AI SDK's stream parts. */
  doStream(options: Record<string, unknown>): PromiseLike<{ stream: ReadableStream<unknown> }>
}

/** Options of {@link aiSdkProvider}. */
export interface AiSdkProviderOptions {
  /** Retries of a failed call or stream that says it may succeed again (`isRetryable`, 429, 5xx). Default `2`. */
  maxRetries?: number
  /** Delay before the first retry in ms, doubled per retry with ±25 % jitter. Default `500`. */
  retryDelayMs?: number
  /** Longest delay between retries in ms. Default `8000`. */
  maxRetryDelayMs?: number
  /** `providerOptions` passed on every call (e.g. `{ anthropic: { thinking: … } }`). Default: none. */
  providerOptions?: Record<string, Record<string, unknown>>
}

const SPECS = new Set(['v2', 'v3', 'v4'])

function checkModel(model: unknown): asserts model is AiSdkLanguageModel {
  const m = model as Partial<AiSdkLanguageModel> | null
  if (
    typeof m !== 'object' ||
    m === null ||
    !SPECS.has(String(m.specificationVersion)) ||
    typeof m.doStream !== 'function'
  ) {
    invalidArgument(
      'aiSdkProvider',
      'languageModel',
      'an AI SDK LanguageModel (spec v2, v3 or v4, with doStream)',
      model,
    )
  }
}

function callOptions(
  spec: AiSdkLanguageModel['specificationVersion'],
  request: ProviderRequest,
  signal: AbortSignal,
  providerOptions: AiSdkProviderOptions['providerOptions'],
): Record<string, unknown> {
  const tools = toAiSdkTools(request)
  return {
    prompt: toAiSdkPrompt(request, spec),
    maxOutputTokens: request.maxTokens,
    ...(request.stopSequences.length > 0 ? { stopSequences: request.stopSequences } : {}),
    ...(tools ? { tools, toolChoice: aiSdkToolChoice(request.toolChoice ?? 'auto') } : {}),
    ...(request.responseFormat
      ? {
          responseFormat: {
            type: 'json',
            schema: request.responseFormat.schema,
            name: request.responseFormat.name,
          },
        }
      : {}),
    ...(providerOptions ? { providerOptions } : {}),
    abortSignal: signal,
  }
}

async function* attempt(
  model: AiSdkLanguageModel,
  options: Record<string, unknown>,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent, AttemptOutcome> {
  if (signal.aborted) return { kind: 'aborted' }
  let reader: ReadableStreamDefaultReader<unknown> | undefined
  try {
    const { stream } = await model.doStream(options)
    reader = stream.getReader()
    const mapper = new AiSdkPartMapper()
    while (true) {
      const next = await reader.read()
      if (next.done) break
      const events = mapper.map(next.value)
      if (mapper.error) return { kind: 'failed', error: mapper.error }
      yield* events
      if (signal.aborted) return { kind: 'aborted' }
      if (mapper.finished) return { kind: 'finished' }
    }
    return {
      kind: 'failed',
      error: aiSdkError(
        Object.assign(new Error('The stream ended without a finish part'), { isRetryable: true }),
      ),
    }
  } catch (error) {
    if (signal.aborted) return { kind: 'aborted' }
    return { kind: 'failed', error: aiSdkError(error) }
  } finally {
    reader?.cancel().catch(() => undefined)
  }
}

/**
 * Any Vercel AI SDK `LanguageModel` as a `ModelProvider`, so the providers written for the AI SDK
 * (Bedrock, Vertex, Gemini, Mistral, Groq, OpenAI, …) run the loop: the formatter's request becomes
 * an AI SDK prompt (use `NativeFormatter`, the default, so tools go as function tools), `doStream`'s
 * parts become provider events (text, reasoning as thinking with its signature, tool input streamed
 * and closed by the `tool-call` part, usage with cache reads and writes, the finish reason).
 *
 * A failure the AI SDK marks retryable (or a 429/5xx) is tried again up to `maxRetries` times after
 * a `retry` event — the loop drops the partial reply, so no tool of it runs — and abort is passed
 * as the call's `abortSignal`. Every failure ends the stream with one typed `ProviderError` holding
 * the AI SDK error as its `cause`. `@ai-sdk/provider` is an optional peer: only this subpath's types
 * refer to its shapes, and nothing of it is loaded at run time.
 */
export function aiSdkProvider(
  languageModel: AiSdkLanguageModel,
  options: AiSdkProviderOptions = {},
): ModelProvider {
  checkModel(languageModel)
  if (typeof options !== 'object' || options === null) {
    invalidArgument('aiSdkProvider', 'options', 'an options object', options)
  }
  const known = new Set(['maxRetries', 'retryDelayMs', 'maxRetryDelayMs', 'providerOptions'])
  for (const key of Object.keys(options)) {
    if (!known.has(key))
      invalidArgument(
        'aiSdkProvider',
        `options.${key}`,
        'a known option (unknown key)',
        options[key as keyof AiSdkProviderOptions],
      )
  }
  for (const key of ['maxRetries', 'retryDelayMs', 'maxRetryDelayMs'] as const) {
    const v = options[key]
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
      invalidArgument('aiSdkProvider', `options.${key}`, 'a finite number ≥ 0', v)
    }
  }
  const policy = {
    maxRetries: options.maxRetries ?? 2,
    baseDelayMs: options.retryDelayMs ?? 500,
    maxDelayMs: options.maxRetryDelayMs ?? 8000,
    random: Math.random,
  }
  return {
    name: `ai-sdk:${languageModel.provider}`,
    // the AI SDK's provider ids read `<provider>.<api>` (`anthropic.messages`, `openai.chat`)
    system: languageModel.provider.split('.')[0] ?? languageModel.provider,
    outputMode: 'json-schema',
    stream(request, { signal }) {
      const call = callOptions(
        languageModel.specificationVersion,
        request,
        signal,
        options.providerOptions,
      )
      return withRetries(() => attempt(languageModel, call, signal), policy, signal)
    },
  }
}
