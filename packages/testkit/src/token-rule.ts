/**
 * The one token rule of the emulator: no tokenizer, just character counts per block, so a test
 * can compute every usage figure by hand. `count_tokens`, `usage.input_tokens` and the cache
 * model all use it, so `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`
 * of a reply always equals `count_tokens` of the same request.
 *
 * The rule (each block rounded up on its own, so prefix counts add up exactly):
 *
 * | what                                   | tokens                                          |
 * | -------------------------------------- | ----------------------------------------------- |
 * | a tool definition                      | ⌈JSON length / 4⌉ (without `cache_control`)     |
 * | `text` block                           | ⌈text length / 4⌉                               |
 * | `thinking` block                       | ⌈thinking length / 4⌉ (signature not counted)   |
 * | `redacted_thinking` block              | ⌈data length / 4⌉                               |
 * | `tool_use` block                       | ⌈(name + JSON of input) length / 4⌉             |
 * | `tool_result` block                    | string content: ⌈length / 4⌉; blocks: their sum |
 * | `image` / `document` block             | 1,000                                           |
 * | any other block                        | ⌈JSON length / 4⌉ (without `cache_control`)     |
 * | each message (after same-role merging) | 3 more, for the role framing                    |
 *
 * Lengths are UTF-16 code units (`string.length`).
 */

import { assertObject, invalidArgument } from './errors.js'
import { mergeTurns } from './parse-request.js'
import type {
  WireMessagesRequest,
  WireRequestBlock,
  WireRequestMessage,
  WireTool,
} from './wire-types.js'

/** Tokens added per message (after merging same-role turns) for role framing. */
export const TOKENS_PER_MESSAGE = 3
/** Fixed cost of an image or document block. */
export const TOKENS_PER_MEDIA = 1_000

/** ⌈text.length / 4⌉: the token rule for a piece of text. */
export function textTokens(text: string): number {
  if (typeof text !== 'string') invalidArgument('textTokens', 'text', 'a string', text)
  return Math.ceil(text.length / 4)
}

/** A block or tool definition without its `cache_control` field (it is not part of the prompt). */
function withoutCacheControl<T extends object>(value: T): Omit<T, 'cache_control'> {
  if (!('cache_control' in value)) return value
  const { cache_control: _ignored, ...rest } = value as T & { cache_control?: unknown }
  return rest
}

/**
 * The exact text a block contributes to the prompt: its JSON without `cache_control` (also
 * inside `tool_result` content), keys in the order sent. Two blocks are the same prompt text
 * exactly when these strings are equal.
 */
export function blockText(block: WireRequestBlock): string {
  const plain = withoutCacheControl(block) as Record<string, unknown>
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    plain.content = (block.content as unknown[]).map((b) =>
      typeof b === 'object' && b !== null ? withoutCacheControl(b) : b,
    )
  }
  return JSON.stringify(plain)
}

/** The exact text a tool definition contributes: its JSON without `cache_control`. */
export function toolText(tool: WireTool): string {
  return JSON.stringify(withoutCacheControl(tool))
}

/** Tokens of one content block under the rule (see the module doc). Never throws. */
export function blockTokens(block: WireRequestBlock): number {
  assertObject(block, 'blockTokens', 'block')
  switch (block.type) {
    case 'text':
      return textTokens(String(block.text ?? ''))
    case 'thinking':
      return textTokens(String(block.thinking ?? ''))
    case 'redacted_thinking':
      return textTokens(String(block.data ?? ''))
    case 'tool_use':
      return textTokens(String(block.name ?? '') + JSON.stringify(block.input ?? {}))
    case 'tool_result': {
      const c = block.content
      if (typeof c === 'string') return textTokens(c)
      if (Array.isArray(c)) {
        let n = 0
        for (const x of c as unknown[]) {
          if (
            typeof x === 'object' &&
            x !== null &&
            typeof (x as WireRequestBlock).type === 'string'
          )
            n += blockTokens(x as WireRequestBlock)
        }
        return n
      }
      return 0
    }
    case 'image':
    case 'document':
      return TOKENS_PER_MEDIA
    default:
      return textTokens(blockText(block))
  }
}

/** Tokens of one tool definition under the rule. */
export function toolTokens(tool: WireTool): number {
  assertObject(tool, 'toolTokens', 'tool')
  return textTokens(toolText(tool))
}

/**
 * Input tokens of a whole Messages request under the rule: tools, system blocks, and the
 * messages with same-role turns merged (pass `merged` when you already have them). ≥ 1.
 */
export function requestTokens(
  request: WireMessagesRequest,
  merged?: readonly WireRequestMessage[],
): number {
  assertObject(request, 'requestTokens', 'request')
  for (const key of ['tools', 'system', 'messages'] as const) {
    if (!Array.isArray(request[key]))
      invalidArgument('requestTokens', `request.${key}`, 'an array', request[key])
  }
  if (merged !== undefined && !Array.isArray(merged)) {
    invalidArgument('requestTokens', 'merged', 'an array', merged)
  }
  const turns = merged ?? mergeTurns(request.messages)
  let n = 0
  for (const t of request.tools) n += toolTokens(t)
  for (const b of request.system) n += blockTokens(b)
  for (const m of turns) {
    n += TOKENS_PER_MESSAGE
    for (const b of m.content) n += blockTokens(b)
  }
  return Math.max(1, n)
}
