// The public zod schemas of messages. They live apart from the helpers in messages.ts so that a
// bundle using only the helpers (or only the types) does not carry classic zod: with
// `sideEffects: false`, a bundler leaves this module out when none of its schemas is used.
import * as z from 'zod'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js'
import { STOP_REASONS } from './stop-reasons.js'

/** Media types the Anthropic API accepts for images. */
export const ImageMediaTypeSchema = z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
/** A media type the Anthropic API accepts for images. */
export type ImageMediaType = z.infer<typeof ImageMediaTypeSchema>

/** The zod schema of {@link TextBlock}: `TextBlockSchema.parse(untrusted)` checks a value. */
export const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() })
/** Plain text. */
export type TextBlock = z.infer<typeof TextBlockSchema>

/** The zod schema of {@link ImageBlock}: `ImageBlockSchema.parse(untrusted)` checks a value. */
export const ImageBlockSchema = z.object({
  type: z.literal('image'),
  mediaType: ImageMediaTypeSchema,
  /** Base64-encoded bytes, without a `data:` prefix. */
  data: z.string(),
})
/** An inline image (base64 + media type). */
export type ImageBlock = z.infer<typeof ImageBlockSchema>

/** The zod schema of {@link ThinkingBlock}: `ThinkingBlockSchema.parse(untrusted)` checks a value. */
export const ThinkingBlockSchema = z.object({
  type: z.literal('thinking'),
  thinking: z.string(),
  /** Opaque signature the API returns with extended thinking; replayed verbatim. */
  signature: z.string().optional(),
})
/** Model reasoning. Never carries a cache breakpoint. */
export type ThinkingBlock = z.infer<typeof ThinkingBlockSchema>

/** The zod schema of {@link RedactedThinkingBlock}: `RedactedThinkingBlockSchema.parse(untrusted)` checks a value. */
export const RedactedThinkingBlockSchema = z.object({
  type: z.literal('redacted_thinking'),
  /** The encrypted reasoning, opaque; sent back exactly as received. */
  data: z.string(),
})
/**
 * Reasoning the provider returned encrypted (Anthropic's `redacted_thinking`). Kept in the history
 * and replayed unchanged: the API requires a turn's thinking blocks, redacted ones included, when
 * thinking and tools are used together. Formats without such a block omit it.
 */
export type RedactedThinkingBlock = z.infer<typeof RedactedThinkingBlockSchema>

/** The zod schema of {@link ToolCallBlock}: `ToolCallBlockSchema.parse(untrusted)` checks a value. */
export const ToolCallBlockSchema = z.object({
  type: z.literal('tool_call'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()).refine((input) => !exceedsJsonDepth(input), {
    message: `tool call input nests deeper than ${MAX_JSON_DEPTH} levels`,
  }),
  /** The verbatim text the call was parsed from (XML formats), so it can be replayed exactly. */
  raw: z.string().optional(),
})
/** A tool invocation requested by the model. */
export type ToolCallBlock = z.infer<typeof ToolCallBlockSchema>

/** The zod schema of {@link ToolResultBlock}: `ToolResultBlockSchema.parse(untrusted)` checks a value. */
export const ToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  toolCallId: z.string().min(1),
  content: z.array(z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema])),
  isError: z.boolean().default(false),
})
/** The outcome of a tool call, fed back to the model. */
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>

/** The zod schema of {@link ContentBlock}: `ContentBlockSchema.parse(untrusted)` checks a value. */
export const ContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ImageBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
  ToolCallBlockSchema,
  ToolResultBlockSchema,
])
/** Any piece of message content, discriminated on `type`. */
export type ContentBlock = z.infer<typeof ContentBlockSchema>

/** The zod schema of {@link Role}: `RoleSchema.parse(untrusted)` checks a value. */
export const RoleSchema = z.enum(['user', 'assistant'])
/** Who wrote a message: `user` or `assistant`. */
export type Role = z.infer<typeof RoleSchema>

/** The zod schema of {@link Message}: `MessageSchema.parse(untrusted)` checks a value. */
export const MessageSchema = z.object({
  role: RoleSchema,
  content: z.array(ContentBlockSchema),
  /** Speaker name in multi-participant transcripts (e.g. `Alice`). */
  participant: z.string().min(1).optional(),
  /** Ask the formatter to put a prompt-cache breakpoint after this message. */
  cacheBreakpoint: z.boolean().optional(),
})
/** One turn of a conversation. */
export type Message = z.infer<typeof MessageSchema>

/** The zod schema of {@link StopReason}: `StopReasonSchema.parse(untrusted)` checks a value. */
export const StopReasonSchema = z.enum(STOP_REASONS)
/** Why the model stopped: the provider's reason, mapped to one vocabulary. */
export type StopReason = z.infer<typeof StopReasonSchema>

/** The zod schema of {@link Usage}: `UsageSchema.parse(untrusted)` checks a value. */
export const UsageSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative().default(0),
  cacheWrite: z.number().int().nonnegative().default(0),
})
/** Token usage reported by the provider. */
export type Usage = z.infer<typeof UsageSchema>

/** The zod schema of {@link AssistantMessage}: `AssistantMessageSchema.parse(untrusted)` checks a value. */
export const AssistantMessageSchema = MessageSchema.extend({
  role: z.literal('assistant'),
  stopReason: StopReasonSchema,
  /** The stop sequence that ended generation, when `stopReason` is `stop_sequence`. */
  stopSequence: z.string().optional(),
  usage: UsageSchema,
})
/** A model reply: a message plus why it stopped and what it cost. */
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>

/** The zod schema of {@link JsonSchemaObject}: `JsonSchemaObjectSchema.parse(untrusted)` checks a value. */
export const JsonSchemaObjectSchema = z.looseObject({
  type: z.literal('object'),
  properties: z.record(z.string(), z.unknown()).optional(),
  required: z.array(z.string()).optional(),
})
/** A JSON Schema whose top level is an object (what tool inputs must be). */
export type JsonSchemaObject = z.infer<typeof JsonSchemaObjectSchema>

/** The zod schema of {@link ToolDefinition}: `ToolDefinitionSchema.parse(untrusted)` checks a value. */
export const ToolDefinitionSchema = z.object({
  name: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 characters of [a-zA-Z0-9_-]'),
  description: z.string(),
  inputSchema: JsonSchemaObjectSchema,
})
/** A tool the model may call, described by JSON Schema. */
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>
