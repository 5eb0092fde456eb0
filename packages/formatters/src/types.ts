import type {
  ImageMediaType,
  Message,
  ModelInfo,
  Section,
  ToolCallBlock,
  ToolDefinition,
  ToolResultBlock,
} from '@contextkit/core'
import type { RequestMemo } from './request-memo.js'

/** How long a prompt-cache entry lives: `'5m'` (the API's default) or `'1h'`. */
export type CacheTtl = '5m' | '1h'

/** Anthropic's prompt-cache marker. Formatters place at most four per request. */
export interface CacheControl {
  /** The only cache type the API has. */
  type: 'ephemeral'
  /** Present when `BuildOptions.cacheTtl` is set. */
  ttl?: CacheTtl
}

/** A text block of a formatted request. */
export interface FormattedTextBlock {
  /** The block kind. */
  type: 'text'
  /** The text. */
  text: string
  /** A prompt-cache breakpoint after this block, when the formatter placed one. */
  cache_control?: CacheControl
}

/** An inline base64 image, shaped like the Anthropic API's image block. */
export interface FormattedImageBlock {
  /** The block kind. */
  type: 'image'
  /** The image bytes, base64 encoded, and their media type. */
  source: { type: 'base64'; media_type: ImageMediaType; data: string }
  /** A prompt-cache breakpoint after this block, when the formatter placed one. */
  cache_control?: CacheControl
}

/** Encrypted model reasoning replayed unchanged (Anthropic's `redacted_thinking`). Never carries `cache_control`. */
export interface FormattedRedactedThinkingBlock {
  /** The block kind. */
  type: 'redacted_thinking'
  /** The encrypted reasoning, as the provider sent it. */
  data: string
}

/** Model reasoning replayed to the provider. Never carries `cache_control`. */
export interface FormattedThinkingBlock {
  /** The block kind. */
  type: 'thinking'
  /** The reasoning text. */
  thinking: string
  /** The provider's signature over the reasoning, replayed with it. */
  signature?: string
}

/** A native tool call in an assistant message. */
export interface FormattedToolUseBlock {
  /** The block kind. */
  type: 'tool_use'
  /** The tool call's id, which its result refers to. */
  id: string
  /** The tool's name. */
  name: string
  /** The call's arguments. */
  input: Record<string, unknown>
  /** A prompt-cache breakpoint after this block, when the formatter placed one. */
  cache_control?: CacheControl
}

/** A native tool result in a user message. */
export interface FormattedToolResultBlock {
  /** The block kind. */
  type: 'tool_result'
  /** The id of the tool call this result answers. */
  tool_use_id: string
  /** What the tool returned: text and images. */
  content: Array<FormattedTextBlock | FormattedImageBlock>
  /** `true` when the tool failed and the content is its error. */
  is_error?: boolean
  /** A prompt-cache breakpoint after this block, when the formatter placed one. */
  cache_control?: CacheControl
}

/** Any block of a formatted message. */
export type FormattedBlock =
  | FormattedTextBlock
  | FormattedImageBlock
  | FormattedThinkingBlock
  | FormattedRedactedThinkingBlock
  | FormattedToolUseBlock
  | FormattedToolResultBlock

/**
 * One provider message. Provider-neutral, but Anthropic-shaped (snake_case fields, roles
 * `user`/`assistant`) so it maps onto the Messages API one to one.
 */
export interface FormattedMessage {
  /** Who speaks. */
  role: 'user' | 'assistant'
  /** The message's blocks, in order. */
  content: FormattedBlock[]
}

/** A native tool definition, shaped like the Anthropic API's `tools` entries. */
export interface NativeToolDefinition {
  /** The tool's name. */
  name: string
  /** What the tool does, for the model. */
  description: string
  /** The JSON Schema of the tool's arguments. */
  input_schema: Record<string, unknown>
  /** A prompt-cache breakpoint after the tool definitions (formatters never set it; callers may). */
  cache_control?: CacheControl
}

/** Something a formatter changed or dropped on purpose (e.g. a stripped image). */
export interface FormatWarning {
  /** Stable code, e.g. `image_stripped`. */
  code: string
  /** What went wrong, for a person. */
  message: string
  /** Machine-readable facts about the problem (which field, which value). */
  details?: Record<string, unknown>
}

/** What {@link Formatter.buildMessages} returns. */
export interface FormattedRequest {
  /** Chat messages. Empty for text-completion formats (ChatML, completions): see `prompt`. */
  messages: FormattedMessage[]
  /** System prompt blocks (empty when there is none). Text-completion formats inline it. */
  system: FormattedTextBlock[]
  /**
   * The part of the model's own turn that is already written (the prefill the reply
   * continues). Seed the stream parser with it: `parser.push(request.assistantPrefill)`.
   */
  assistantPrefill?: string
  /** Stop sequences the request needs (possibly empty). */
  stopSequences: string[]
  /** Tool definitions to pass through the provider's native tool API, when the format uses it. */
  nativeTools?: NativeToolDefinition[]
  /** How many `cache_control` markers were placed (0–4). */
  cacheMarkersApplied: number
  /** The whole prompt string, for text-completion formats (ChatML, completions). */
  prompt?: string
  /** What was changed or dropped on purpose. Record these in your trace. */
  warnings: FormatWarning[]
}

/** Options for {@link Formatter.buildMessages}. */
export interface BuildOptions {
  /** Name of the participant the model speaks as. Default `'Assistant'`. */
  assistantName?: string
  /** Name used for user-role messages without a `participant`. Default `'User'`. */
  userName?: string
  /**
   * System prompt: a string, or core `Section`s (their texts joined by blank lines; a cache
   * marker goes after the last `stable` section). Default: none.
   */
  system?: string | readonly Section[]
  /** Tools the model may call. Default `[]`. */
  tools?: readonly ToolDefinition[]
  /**
   * Open a thinking block in the prefill (formats that support it). Default `false`. When the
   * conversation ends in a non-empty assistant message that is continued, no block is opened
   * mid-answer: the request carries a `thinking_not_opened` warning instead. `{ enabled }` (the
   * shape `runAgent` and the original design take) means the same as its `enabled`.
   */
  thinking?: boolean | { enabled: boolean }
  /**
   * Ephemeral text the reply must continue from. Trailing whitespace is trimmed. With
   * `thinking`, it is written after the opened thinking tag (inside the thinking block). After a
   * non-empty final assistant message it is joined with the format's separator (see README),
   * unless it starts with whitespace of its own.
   */
  prefill?: string
  /** Extra stop sequences appended after the format's own. Default `[]`. */
  stopSequences?: readonly string[]
  /**
   * Sections for the current user turn (plan, context-file hint, preloaded files), rendered for
   * the request only into the last user message that is not only tool results:
   * `placement: 'before'` sections in front of the user's text, the others after it, blank-line separated.
   * Default `[]`.
   */
  userSections?: readonly Section[]
  /**
   * The model the request is for. For a model that cannot take a prefill
   * (`supportsPrefill: false`, or `thinkingMode: 'adaptive-always'`: thinking always on), a format that always ends
   * in an open assistant turn (`AnthropicXmlFormatter`) and a `prefill` given to
   * `NativeFormatter` throw `PrefillUnsupportedError`, instead of building a request the API
   * answers with a 400. Default: not checked.
   */
  model?: Pick<ModelInfo, 'id' | 'supportsPrefill'> & Partial<Pick<ModelInfo, 'thinkingMode'>>
  /**
   * Text or messages placed before the conversation (a fixed preamble, a seeded transcript).
   * A string is rendered like a user message of the conversation's own format (in the XML
   * transcript: the first transcript text, with no speaker name). Default: none.
   */
  contextPrefix?: string | readonly Message[]
  /**
   * Put a cache breakpoint right after the context prefix (formats with `cache_control`).
   * Messages of a prefix may also carry their own `cacheBreakpoint`. Default `false`.
   */
  cacheContextPrefix?: boolean
  /**
   * Decides which conversation messages get a cache breakpoint after them; `index` is the
   * message's position in `messages`. Default: `message.cacheBreakpoint === true`.
   */
  hasCacheMarker?: (message: Message, index: number) => boolean
  /** `false`: place no `cache_control` marker at all (system, prefix or messages). Default `true`. */
  promptCaching?: boolean
  /** Lifetime written into every cache marker (`ttl`). Default: none (the API's 5 minutes). */
  cacheTtl?: CacheTtl
}

/** {@link BuildOptions} after checking: `thinking` is a boolean. */
export type CheckedBuildOptions = Omit<BuildOptions, 'thinking'> & { thinking?: boolean }

/**
 * What a stream parser reports, in order. Adjacent deltas of one block may be split anywhere.
 * Event names are kebab-case (`tool-call-end`), like every name this package gives; content
 * blocks keep core's `type`s (`tool_call`), and warning and error codes are snake_case.
 */
export type StreamEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'thinking-start' }
  | { type: 'thinking-delta'; text: string }
  | { type: 'thinking-end' }
  | { type: 'tool-call-start'; id: string; name: string }
  | { type: 'tool-call-parameter'; id: string; name: string; value: unknown }
  | {
      /** The block kind. */
      type: 'tool-call-end'
      call: ToolCallBlock
      /** `true` when the stream ended inside the call: never execute an incomplete call. */
      incomplete?: boolean
    }
  | {
      /** A complete `<result>`/`<error>` of a `<function_results>` block (XML formats). */
      type: 'tool-result'
      result: ToolResultBlock
      /** The element as written, verbatim. */
      raw: string
    }

/** Which kind of block a parser is inside. */
export type BlockType = 'text' | 'thinking' | 'tool-call' | 'tool-result'

/** Options for stream parsers and `parseToolCalls`. */
export interface ParserOptions {
  /** Tool definitions; parameter values are coerced by their JSON Schema. Default `[]`. */
  tools?: readonly ToolDefinition[]
}

/** Incremental parser of one model reply. */
export interface StreamParser {
  /** Feed the next chunk; returns the events it completes. */
  processChunk(chunk: string): StreamEvent[]
  /** End of stream: release held-back text and close open blocks. */
  flush(): StreamEvent[]
  /** Seed with text already in the request (the prefill): same code path, no events. */
  push(content: string): void
  /** Everything pushed and processed so far. */
  getAccumulated(): string
  /** Forget all state (including the tool id counter). */
  reset(): void
  /** The kind of block the next content will belong to. */
  getCurrentBlockType(): BlockType
  /**
   * Index (from 0, counting every text, thinking, tool-call and tool-result block since the
   * parser was created or reset, pushed text included) of the block being parsed: the open
   * thinking/tool block, the text block being written, or, between blocks, the index the next
   * block will get. Depends only on the text processed so far, never on how it was chunked.
   */
  getBlockIndex(): number
}

/**
 * A prompt format: renders messages into a provider request and reads the model's output back.
 * Formatters are plain values; pick one per request.
 */
export interface Formatter {
  /** The format's name, as traces and errors show it (`'native'`, `'chatml'`, …). */
  readonly name: string
  /** `true` when requests end in a prefilled assistant turn the reply continues. */
  readonly usesPrefill: boolean
  /**
   * Render a request. Throws typed errors on input the format cannot represent. `memo`: what the
   * successive requests of one conversation share ({@link RequestMemo}); a format with nothing
   * to reuse ignores it. The returned messages may be shared (frozen) with other requests: copy
   * one before changing it.
   */
  buildMessages(
    messages: readonly Message[],
    options?: BuildOptions,
    memo?: RequestMemo,
  ): FormattedRequest
  /** Tool definitions as prompt text, or `undefined` when tools go through the native API. */
  formatToolDefinitions?(tools: readonly ToolDefinition[]): string | undefined
  /** Tool results as the text the format feeds back to the model. */
  formatToolResults(results: readonly ToolResultBlock[]): string
  /** A fresh incremental parser for one reply. */
  createStreamParser(options?: ParserOptions): StreamParser
  /** Complete tool calls found in a whole reply, in document order. */
  parseToolCalls(text: string, options?: ParserOptions): ToolCallBlock[]
  /** Whether a whole reply contains at least one complete tool call. */
  hasToolUse(text: string, options?: ParserOptions): boolean
}
