// The checks of messages, content blocks and tool definitions that report where a value is wrong,
// without zod: what `parseWith` is given when core's fast input checks (input-checks.ts) say no.
// Each accepts exactly what the zod schema of the same name in `@contextkit/core/schemas`
// accepts (`message-checks.test.ts` holds them together with fast-check), so the roots of core,
// formatters and agent-loop never load zod to word an error. Built on first use (`lazy`), like
// every check on an import path: importing core builds none of them.

import {
  array,
  lazy,
  object,
  optional,
  record,
  refine,
  variants,
  withFastPath,
} from './composite-checks.js'
import { isContentBlockArray, isMessageArray, isToolArray } from './input-checks.js'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js'
import type { ContentBlock, Message, ToolDefinition, ToolResultBlock } from './message-schemas.js'
import { boolean, type Check, literal, string, unknown } from './value-checks.js'

/** The tool name rule: what `ToolDefinitionSchema` says of a bad name. */
const TOOL_NAME = {
  regex: /^[a-zA-Z0-9_-]{1,64}$/,
  message: 'tool names are 1-64 characters of [a-zA-Z0-9_-]',
}

/** Every check of this module, built together on the first use of any. */
function build() {
  const text = object({ type: literal('text'), text: string() })
  const image = object({
    type: literal('image'),
    mediaType: literal('image/png', 'image/jpeg', 'image/gif', 'image/webp'),
    data: string(),
  })
  const thinking = object({
    type: literal('thinking'),
    thinking: string(),
    signature: optional(string()),
  })
  const redactedThinking = object({ type: literal('redacted_thinking'), data: string() })
  const toolCall = refine(
    object({
      type: literal('tool_call'),
      id: string({ min: 1 }),
      name: string({ min: 1 }),
      input: record(unknown()),
      raw: optional(string()),
    }),
    (block) =>
      exceedsJsonDepth(block.input)
        ? [
            {
              path: ['input'],
              message: `tool call input nests deeper than ${MAX_JSON_DEPTH} levels`,
            },
          ]
        : [],
  )
  const resultContent = array(variants('type', { text, image }))
  const toolResult = object({
    type: literal('tool_result'),
    toolCallId: string({ min: 1 }),
    content: resultContent,
    isError: optional(boolean()),
  })
  const block = variants('type', {
    text,
    image,
    thinking,
    redacted_thinking: redactedThinking,
    tool_call: toolCall,
    tool_result: toolResult,
  }) as Check<ContentBlock>
  const message = object({
    role: literal('user', 'assistant'),
    content: withFastPath(array(block), isContentBlockArray),
    participant: optional(string({ min: 1 })),
    cacheBreakpoint: optional(boolean()),
  }) as Check<Message>
  const toolDefinition = object({
    name: string({ pattern: TOOL_NAME }),
    description: string(),
    inputSchema: object({
      type: literal('object'),
      properties: optional(record(unknown())),
      required: optional(array(string())),
    }),
  }) as Check<ToolDefinition>
  return {
    messageList: withFastPath(array(message), isMessageArray),
    toolDefinition,
    toolList: withFastPath(array(toolDefinition), isToolArray),
    toolResultList: array(toolResult) as Check<ToolResultBlock[]>,
    toolResultContent: resultContent as Check<ToolResultBlock['content']>,
  }
}

let built: ReturnType<typeof build> | undefined
/** The checks of this module, built once. */
const checks = (): ReturnType<typeof build> => {
  built ??= build()
  return built
}

/**
 * The check of a `Message[]` (what `MessageSchema.array()` accepts), without zod: a good list is
 * passed by core's `isMessageArray` alone; a bad one is reported path by path, as in
 * `Invalid messages: 3.content.0.text: expected a string, got 7` from
 * `parseWith(MessageListCheck, value, 'messages')`.
 */
export const MessageListCheck: Check<Message[]> = /* @__PURE__ */ lazy(() => checks().messageList)

/**
 * The check of a `ToolDefinition` (what `ToolDefinitionSchema` accepts), without zod: a name of
 * 1–64 characters of `[a-zA-Z0-9_-]`, a description, and an input schema whose top level is
 * `type: "object"`.
 */
export const ToolDefinitionCheck: Check<ToolDefinition> = /* @__PURE__ */ lazy(
  () => checks().toolDefinition,
)

/** The check of a `ToolDefinition[]` (what `ToolDefinitionSchema.array()` accepts), without zod. */
export const ToolListCheck: Check<ToolDefinition[]> = /* @__PURE__ */ lazy(() => checks().toolList)

/** The check of a `ToolResultBlock[]` (what `ToolResultBlockSchema.array()` accepts), without zod. */
export const ToolResultListCheck: Check<ToolResultBlock[]> = /* @__PURE__ */ lazy(
  () => checks().toolResultList,
)

/**
 * The check of the content of a tool result, text and image blocks (what
 * `z.array(z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema]))` accepts).
 */
export const ToolResultContentCheck: Check<ToolResultBlock['content']> = /* @__PURE__ */ lazy(
  () => checks().toolResultContent,
)
