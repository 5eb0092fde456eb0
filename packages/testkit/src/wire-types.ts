/**
 * The Anthropic Messages API wire format, as the emulator reads and writes it.
 *
 * These are this package's own types (testkit depends on no other contextkit package and only
 * optionally on `@anthropic-ai/sdk`). Field names are the API's snake_case names.
 */

/** Why the model stopped, as the API reports it. */
export type WireStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded'

/** The error `type`s the API uses in error bodies. */
export type WireErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error'
  | 'billing_error'

/** Token usage of one response. */
export interface WireUsage {
  /** Uncached input tokens. */
  input_tokens: number
  /** Output tokens. */
  output_tokens: number
  /** Input tokens written to the prompt cache. */
  cache_creation_input_tokens: number
  /** Input tokens read from the prompt cache. */
  cache_read_input_tokens: number
  /** Written tokens by TTL; present when the emulator's cache model is on (as the API sends it). */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number }
}

/** A text block of a response. */
export interface WireTextBlock {
  /** The block kind. */
  type: 'text'
  /** The text. */
  text: string
}

/** A thinking block of a response; `signature` lets the client send it back. */
export interface WireThinkingBlock {
  /** The block kind. */
  type: 'thinking'
  /** The reasoning text. */
  thinking: string
  /** The signature over the reasoning. */
  signature: string
}

/** A redacted thinking block (opaque `data`). */
export interface WireRedactedThinkingBlock {
  /** The block kind. */
  type: 'redacted_thinking'
  /** The encrypted reasoning. */
  data: string
}

/** A tool call of a response. */
export interface WireToolUseBlock {
  /** The block kind. */
  type: 'tool_use'
  /** The tool call's id (`toolu_…`), which its result refers to. */
  id: string
  /** The tool's name. */
  name: string
  /** The call's arguments. */
  input: Record<string, unknown>
}

/** Any block the emulator can put in a response. */
export type WireResponseBlock =
  | WireTextBlock
  | WireThinkingBlock
  | WireRedactedThinkingBlock
  | WireToolUseBlock

/** A complete (non-streaming) `POST /v1/messages` response body. */
export interface WireMessage {
  /** The message id (`msg_…`). */
  id: string
  /** Always `'message'`. */
  type: 'message'
  /** Always `'assistant'`. */
  role: 'assistant'
  /** The model id. */
  model: string
  /** The reply's blocks, in order. */
  content: WireResponseBlock[]
  /** Why the reply ended; `null` while streaming. */
  stop_reason: WireStopReason | null
  /** The stop sequence that ended the reply, if one did. */
  stop_sequence: string | null
  /** The token counts of the exchange. */
  usage: WireUsage
}

/** The body of every error response: `{ type: 'error', error: { type, message }, request_id }`. */
export interface WireErrorBody {
  /** Always `'error'`. */
  type: 'error'
  /** `details.error_code` names a specific failure (e.g. `thread_not_found`), when there is one. */
  error: { type: WireErrorType; message: string; details?: Record<string, unknown> }
  /** The id of the failed request. */
  request_id: string
}

/** A content block of a request, after structural validation. Unknown fields are kept. */
export interface WireRequestBlock {
  /** The block kind (`'text'`, `'image'`, `'tool_use'`, `'tool_result'`, …). */
  type: string
  /** Fields the emulator does not read, kept as sent. */
  [field: string]: unknown
}

/** A request message with its content always as a block array. */
export interface WireRequestMessage {
  /** Who speaks. */
  role: 'user' | 'assistant'
  /** The message's blocks (a string content is read as one text block). */
  content: WireRequestBlock[]
}

/** A tool definition as sent in `tools`. */
export interface WireTool {
  /** The tool's name. */
  name: string
  /** Fields the emulator does not read, kept as sent. */
  [field: string]: unknown
}

/** A validated `POST /v1/messages` (or `count_tokens`) request body. */
export interface WireMessagesRequest {
  /** The model id. */
  model: string
  /** `undefined` only for `count_tokens`, which does not require it. */
  max_tokens: number | undefined
  /** As sent (consecutive same-role turns not yet merged), string content turned into blocks. */
  messages: WireRequestMessage[]
  /** `system` as blocks (a string becomes one text block); `[]` when absent. */
  system: WireRequestBlock[]
  /** The tools the request offers. */
  tools: WireTool[]
  /** Extra stop sequences. */
  stop_sequences: string[]
  /** Whether the reply is streamed as server-sent events. */
  stream: boolean
  /** `true` when `thinking: { type: 'enabled' | 'adaptive' }` was sent. */
  thinking: boolean
  /** The parsed body exactly as received. */
  raw: Record<string, unknown>
}

/** Server-sent events of a streamed `POST /v1/messages` response. */
export type WireStreamEvent =
  | { type: 'message_start'; message: WireMessage }
  | { type: 'ping' }
  | {
      type: 'content_block_start'
      index: number
      content_block: WireResponseBlock
    }
  | {
      type: 'content_block_delta'
      index: number
      delta:
        | { type: 'text_delta'; text: string }
        | { type: 'input_json_delta'; partial_json: string }
        | { type: 'thinking_delta'; thinking: string }
        | { type: 'signature_delta'; signature: string }
    }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta'
      delta: { stop_reason: WireStopReason | null; stop_sequence: string | null }
      usage: { output_tokens: number }
    }
  | { type: 'message_stop' }
  | { type: 'error'; error: { type: WireErrorType; message: string }; request_id: string }
