import type { ModelInfo, StopReason, Usage } from '@contextkit/core'
import type { FormattedRequest } from '@contextkit/formatters'

// The request's parts, as a provider reads them: a provider imports them from this door only.
export type {
  CacheControl,
  FormattedBlock,
  FormattedImageBlock,
  FormattedMessage,
  FormattedRequest,
  FormattedTextBlock,
  NativeToolDefinition,
} from '@contextkit/formatters'

import type { ProviderError } from './errors.js'
import type { ToolChoice } from './tool-choice.js'

/** Extended thinking for one call. */
export interface ThinkingOptions {
  /** Whether the model thinks before it answers. */
  enabled: boolean
  /** Tokens the model may think for. Default: the provider's choice (Anthropic: 1,024). */
  budgetTokens?: number
}

/**
 * One model call, as a provider receives it: the formatter's provider-neutral request plus the
 * model, the reply size and thinking. Anthropic-shaped (see `@contextkit/formatters`), so the
 * Messages API provider copies fields; a completions provider reads `prompt` and `stopSequences`.
 */
export interface ProviderRequest extends FormattedRequest {
  /** The model the request is for (its id, limits and capabilities). */
  model: ModelInfo
  /** `max_tokens` of the reply. */
  maxTokens: number
  /** Extended thinking for this call; absent: off. */
  thinking?: ThinkingOptions
  /**
   * Which of `nativeTools` the model may or must call (`runAgent`'s `toolChoice`, or a step's);
   * set only on requests with native tools. Absent: the provider's default (`'auto'`).
   */
  toolChoice?: ToolChoice
  /**
   * The JSON Schema the reply's text must match (`runAgent({ output })` on a provider whose
   * `outputMode` is `'json-schema'`). Absent: free text.
   */
  responseFormat?: ResponseFormat
}

/** Options of {@link ModelProvider.stream}. */
export interface ProviderStreamOptions {
  /** Fires when the run is aborted: stop reading and end the stream. */
  signal: AbortSignal
}

/**
 * What a provider reports while a reply streams, in order. Text goes through the formatter's
 * stream parser in the loop (so XML tool calls in text are found the same way as native ones);
 * native tool calls and thinking come as their own events.
 *
 * - `retry`: the provider is about to send the same request again after a failure inside the
 *   stream (an `event: error`, a dropped connection). Everything reported since the start of the
 *   reply is void: the loop throws the partial reply away (no tool of it has run).
 * - `finish` or `error` ends the stream; a provider reports failure as an `error` event rather
 *   than throwing (a throw is treated the same way).
 */
export type ProviderEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'thinking-delta'; text: string }
  /** Closes a native thinking block; `signature` is kept for replay. */
  | { type: 'thinking-end'; signature?: string }
  /** A whole encrypted thinking block (Anthropic's `redacted_thinking`), kept and replayed unchanged. */
  | { type: 'redacted-thinking'; data: string }
  | { type: 'tool-call-start'; id: string; name: string }
  /** A piece of the call's JSON input as it streams (concatenate them; the first may be empty). */
  | { type: 'tool-call-delta'; id: string; partialJson: string }
  /**
   * The call is complete. `parseError` is set (and `input` is `{}`) when its JSON input could not
   * be parsed: the loop answers the call with an error result instead of running the tool.
   */
  | {
      type: 'tool-call-end'
      id: string
      name: string
      input: Record<string, unknown>
      parseError?: string
    }
  /** Usage so far (fields given replace earlier ones). */
  | { type: 'usage'; usage: Partial<Usage> }
  /** Something the provider dropped or changed on purpose (e.g. a redacted thinking block). */
  | { type: 'warning'; code: string; message: string }
  | { type: 'retry'; attempt: number; delayMs: number; error: ProviderError }
  | {
      type: 'finish'
      stopReason: StopReason
      stopSequence?: string
      usage: Usage
      requestId?: string
      /** The reply's id as the API gave it (Anthropic `msg_…`, OpenAI `chatcmpl-…`). */
      responseId?: string
      /** The model that served the reply, as the API named it (may differ from the one asked). */
      responseModel?: string
    }
  | { type: 'error'; error: ProviderError }

/**
 * A model behind an API. Implement `stream` for any backend; the loop does the rest (formatting,
 * parsing, tools, middleware). `@contextkit/agent-loop/anthropic` has the Anthropic one.
 */
export interface ModelProvider {
  /** Short name for traces and errors, e.g. `anthropic`. */
  readonly name: string
  /**
   * The API this provider talks to, as OpenTelemetry's `gen_ai.provider.name` names it
   * (`anthropic`, `openai`, an AI SDK model's provider). Absent: unknown.
   */
  readonly system?: string
  /** The base URL requests go to (for `server.address` / `server.port`). Absent: unknown. */
  readonly baseUrl?: string
  /**
   * How the run's final structured output (`runAgent({ output })`) is asked for: `'tool'` (a
   * forced output tool; the default), `'json-schema'` (`ProviderRequest.responseFormat`) or
   * `'prompt'` (an instruction, the reply parsed as JSON).
   */
  readonly outputMode?: OutputMode
  /** Stream one reply. Must end with a `finish` or an `error` event, and stop on `signal`. */
  stream(request: ProviderRequest, options: ProviderStreamOptions): AsyncIterable<ProviderEvent>
}

/**
 * How a provider is asked for the run's final structured output (`runAgent({ output })`):
 * `'tool'` — a forced call of the {@link OUTPUT_TOOL_NAME} tool (Anthropic; the default);
 * `'json-schema'` — the request's `responseFormat` (OpenAI chat `response_format`, the AI SDK's
 * `responseFormat`); `'prompt'` — an instruction with the JSON Schema, the reply parsed as JSON
 * (base models).
 */
export type OutputMode = 'tool' | 'json-schema' | 'prompt'

/** A JSON Schema the reply must match, as a request carries it (`ProviderRequest.responseFormat`). */
export interface ResponseFormat {
  /** A name for the schema (`final_output`). */
  name: string
  /** The JSON Schema: always an object at the top (other values are wrapped as `{ value }`). */
  schema: Record<string, unknown>
}
