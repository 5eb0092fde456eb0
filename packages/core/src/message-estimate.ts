import { assertArray, assertObject, invalidArgument } from './errors.js'
import type { ContentBlock, Message, ToolDefinition } from './message-schemas.js'
import type { TokenCounter } from './tokens.js'

/** Tokens counted for one image, wherever it stands (the most an image costs on Anthropic's API, about 1.15 MP). */
const IMAGE_TOKENS = 1600
/** Tokens counted per message on top of its content (role and framing). */
const MESSAGE_OVERHEAD_TOKENS = 4

/**
 * Estimated tokens of a request's `messages` and tool definitions (`tools`), each optional,
 * with `counter` for the text.
 * The one rule every package uses (the agent loop's history limit, compaction and budget,
 * `@contextkit/ai-sdk`'s fitting), counting what is sent and replayed:
 *
 * - a message: 4 tokens (role and framing) plus its blocks;
 * - `text`: its text; `thinking`: its reasoning text; `redacted_thinking`: its `data` (replayed
 *   unchanged, so it costs);
 * - `image`: 1,600 tokens, at the top level or inside a tool result;
 * - `tool_call`: its name plus `raw` when present (the verbatim text a text tool format replays),
 *   else its input as JSON;
 * - `tool_result`: its parts;
 * - a tool definition: `name`, `description` and the JSON Schema, one per line.
 *
 * A count that is not a finite number above 0 counts 0. Sections are not counted here: fitting them
 * is `fitRequest`'s job. Pure: the same input and counter give the same number; adding a block,
 * a message or a tool never lowers it. For one message's count, pass `{ messages: [message] }`.
 *
 * @throws ValidationError when `request` is not an object, `messages` is not an array of
 * objects with a `content` array, `tools` is not an array of objects, or `counter` has no
 * `count` function.
 */
export function estimateRequestTokens(
  request: { readonly messages?: readonly Message[]; readonly tools?: readonly ToolDefinition[] },
  counter: TokenCounter,
): number {
  const fn = 'estimateRequestTokens'
  assertObject(request, fn, 'request')
  if (typeof (counter as Partial<TokenCounter> | null)?.count !== 'function') {
    invalidArgument(fn, 'counter', 'a TokenCounter', counter)
  }
  let total = 0
  if (request.messages !== undefined) {
    assertArray(request.messages, fn, 'request.messages')
    for (const [n, message] of request.messages.entries()) {
      assertObject(message, fn, `request.messages[${n}]`)
      assertArray(message.content, fn, `request.messages[${n}].content`)
      total += messageTokens(message, counter)
    }
  }
  if (request.tools !== undefined) {
    assertArray(request.tools, fn, 'request.tools')
    for (const [n, tool] of request.tools.entries()) {
      assertObject(tool, fn, `request.tools[${n}]`)
      total += count(counter, `${tool.name}\n${tool.description}\n${json(tool.inputSchema)}`)
    }
  }
  return total
}

function messageTokens(message: Message, counter: TokenCounter): number {
  let total = MESSAGE_OVERHEAD_TOKENS
  for (const block of message.content) total += blockTokens(block, counter)
  return total
}

function blockTokens(block: ContentBlock, counter: TokenCounter): number {
  switch (block.type) {
    case 'text':
      return count(counter, block.text)
    case 'thinking':
      return count(counter, block.thinking)
    case 'redacted_thinking':
      return count(counter, block.data)
    case 'image':
      return IMAGE_TOKENS
    case 'tool_call':
      return count(counter, block.name) + count(counter, block.raw ?? json(block.input))
    case 'tool_result': {
      let total = 0
      for (const part of block.content) total += blockTokens(part, counter)
      return total
    }
    default:
      return 0
  }
}

function count(counter: TokenCounter, text: string): number {
  const n = counter.count(text)
  return Number.isFinite(n) && n > 0 ? n : 0
}

/** `value` as JSON, or as `String(value)` when it cannot be (a cycle, a `BigInt`). */
function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return String(value)
  }
}
