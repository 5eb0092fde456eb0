/**
 * Token estimates for usage fields and `count_tokens`, from the one rule in `token-rule.ts`
 * (⌈characters / 4⌉ per block, 3 per message, 1,000 per image or document). Deterministic, so
 * tests can compute the exact figures.
 */
import { requestTokens, textTokens } from './token-rule.js'
import type { WireMessagesRequest } from './wire-types.js'

/** ⌈text.length / 4⌉. */
export function estimateTextTokens(text: string): number {
  return textTokens(text)
}

/** Input tokens of a Messages request (tools + system + messages) under the token rule. ≥ 1. */
export function estimateInputTokens(request: WireMessagesRequest): number {
  return requestTokens(request)
}
