import type { ContentBlock, TurnContext } from '@contextkit/core'
import type { ProviderRequest } from '../provider/contract.js'
import { ContextTooLongError, type ProviderError } from '../provider/errors.js'

/**
 * The name the loop's trailing-turn rule goes by in `retry` events (`by`) and the
 * `agent:recovered` trace stage.
 */
export const TRAILING_TURN_FALLBACK = 'agent-loop:trailing-turn'

/**
 * A request may end in an assistant turn that the reply continues (`turn.prefill` rendered by the
 * formatter, or a format such as the XML transcript that always opens the model's turn). The
 * reply is then that opening text followed by what the model streamed: when the request's
 * trailing assistant turn ends with `opening` and the first text block does not already start
 * with it, it is put in front, so within the run the model sees its own words whole. A middleware
 * that set `turn.prefill` takes it off again in `finalize`, before anything is saved.
 */
export function continueTrailingTurn(
  content: readonly ContentBlock[],
  opening: string | undefined,
  trailingTurn: string | undefined,
): ContentBlock[] {
  const p = opening?.trimEnd() ?? ''
  if (p.trim() === '' || !trailingTurn?.trimEnd().endsWith(p.trim())) return [...content]
  const index = content.findIndex((b) => b.type === 'text')
  const block = content[index]
  const out = [...content]
  if (block?.type === 'text') {
    if (!block.text.startsWith(p)) out[index] = { ...block, text: p + block.text }
    return out
  }
  const at = content.findIndex((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking')
  out.splice(at < 0 ? out.length : at, 0, { type: 'text', text: p })
  return out
}

/**
 * The loop's one rule for a model that refuses a trailing assistant turn, applied after every
 * middleware `recover` declined: a `400 invalid_request_error` answering a request whose last
 * message is an assistant turn is sent once more with the turn's model marked as not taking one
 * (`supportsPrefill: false`, so `formatterFor` picks a format without it) and without
 * `turn.prefill` (`dropped` says whether one was left out). It reads the request's shape and the
 * error's status and type, never its wording; when the 400 had another cause, the second attempt
 * gets the same 400 and the run ends with it. Returns `undefined` when the rule does not apply or
 * would change nothing, and for a {@link ContextTooLongError} (a prompt over the window is no
 * trailing-turn refusal; the loop compacts instead).
 */
export function withoutTrailingTurn(
  error: ProviderError,
  turn: TurnContext,
  request: ProviderRequest,
): { turn: TurnContext; dropped: boolean } | undefined {
  if (error.code === ContextTooLongError.code) return undefined
  if (error.status !== 400 || error.errorType !== 'invalid_request_error') return undefined
  if (request.messages[request.messages.length - 1]?.role !== 'assistant') return undefined
  if (!turn.model.supportsPrefill && turn.prefill === undefined) return undefined
  const { prefill, ...rest } = turn
  return {
    turn: { ...rest, model: { ...turn.model, supportsPrefill: false } },
    dropped: prefill !== undefined,
  }
}
