/**
 * Token estimates for usage fields and `count_tokens`: ⌈characters / 4⌉, deterministic and
 * cheap. Tests should assert on values they script, or on consistency (count_tokens equals the
 * `input_tokens` of the same request), not on these numbers.
 */
import type { WireMessagesRequest, WireRequestBlock } from './wire-types.js'

/** Tokens added per message for role framing. */
const PER_MESSAGE = 3
/** Fixed cost of an image or document block. */
const PER_MEDIA = 1_000

/** ⌈text.length / 4⌉. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

function blockChars(b: WireRequestBlock): number {
  switch (b.type) {
    case 'text':
      return String(b.text ?? '').length
    case 'thinking':
      return String(b.thinking ?? '').length
    case 'tool_use':
      return String(b.name ?? '').length + JSON.stringify(b.input ?? {}).length
    case 'tool_result': {
      const c = b.content
      if (typeof c === 'string') return c.length
      if (Array.isArray(c)) return (c as WireRequestBlock[]).reduce((n, x) => n + blockChars(x), 0)
      return 0
    }
    case 'image':
    case 'document':
      return PER_MEDIA * 4
    default:
      return JSON.stringify(b).length
  }
}

/** Input tokens of a Messages request (system + messages + tools). Always ≥ 1. */
export function estimateInputTokens(request: WireMessagesRequest): number {
  let chars = 0
  for (const b of request.system) chars += blockChars(b)
  for (const t of request.tools) chars += JSON.stringify(t).length
  let tokens = 0
  for (const m of request.messages) {
    for (const b of m.content) chars += blockChars(b)
    tokens += PER_MESSAGE
  }
  return Math.max(1, tokens + Math.ceil(chars / 4))
}
