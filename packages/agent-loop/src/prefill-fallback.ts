import type { TurnContext } from '@contextkit/core'
import type { ProviderError } from './errors.js'
import type { ProviderRequest } from './provider.js'

/**
 * The name the loop's own prefill fallback goes by in `retry` events (`by`) and the
 * `agent:recovered` trace stage.
 */
export const PREFILL_FALLBACK = 'agent-loop:prefill-fallback'

/**
 * The loop's last resort after every middleware `recover` declined: a `400
 * invalid_request_error` answering a request that ended in an open assistant turn (a prefill, or
 * a format such as the XML transcript that always writes the model's turn) is retried once with
 * the turn's model marked `supportsPrefill: false`, so `formatterFor` picks a format without a
 * trailing assistant turn, and without `turn.prefill` (`dropped` says whether one was left out).
 * That covers a model the capability table wrongly says takes a prefill (Claude 4.6 and later)
 * and a prefill sent while thinking is on, whatever wording the API uses. The decision reads the
 * request's shape and the error's status and type, never its text; when the 400 had another
 * cause, the retry gets the same 400 and the run ends with it.
 *
 * Returns `undefined` when the fallback does not apply or would change nothing.
 */
export function prefillFallback(
  error: ProviderError,
  turn: TurnContext,
  request: ProviderRequest,
): { turn: TurnContext; dropped: boolean } | undefined {
  if (error.status !== 400 || error.errorType !== 'invalid_request_error') return undefined
  if (request.messages[request.messages.length - 1]?.role !== 'assistant') return undefined
  if (!turn.model.supportsPrefill && turn.prefill === undefined) return undefined
  const { prefill, ...rest } = turn
  return {
    turn: { ...rest, model: { ...turn.model, supportsPrefill: false } },
    dropped: prefill !== undefined,
  }
}
