import type { Message, ModelInfo } from '@contextkit/core'
import { assertString, invalidArgument } from '@contextkit/core'
import type { OnUnsupported } from './config.js'
import { PrefillRejectedError } from './errors.js'
import { checkMessages } from './guards.js'

/**
 * How a prefill went out: `native` (a trailing assistant message), `instruct` (an instruction in
 * the last user turn), `skip` (not sent, see `reason`) or `none` (no prefill text).
 */
export type PrefillMode = 'native' | 'instruct' | 'skip' | 'none'

/** Why a prefill was not sent natively. */
export type PrefillFallbackReason =
  /** `ModelInfo.supportsPrefill` is false (or the provider rejected it). */
  | 'model'
  /**
   * Thinking is on for this call (the API forbids prefill then), or always on for this model
   * (`ModelInfo.thinkingMode: 'adaptive-always'`).
   */
  | 'thinking'
  /** The conversation is empty: there is no user turn to continue. */
  | 'no-messages'
  /** The conversation already ends with an assistant message (it would be merged). */
  | 'ends-with-assistant'

/** Options of {@link applyPrefill} and {@link injectPrefill}. */
export interface ApplyPrefillOptions {
  /** What to do when the model cannot take a prefill on this call. Default `'instruct'`. */
  onUnsupported?: OnUnsupported
  /** Extended thinking is on for this call (no prefill allowed). Default `false`. */
  thinking?: boolean
  /** Builds the instruction used in `'instruct'` mode. Default {@link defaultInstruction}. */
  instruction?: (prefill: string) => string
}

/** Result of {@link applyPrefill}. */
export interface AppliedPrefill {
  /** The new message list (the input is never mutated). */
  messages: Message[]
  /**
   * How the prefill was sent: as the start of the reply (`native`) or as an instruction
   * (`instruct`).
   */
  mode: PrefillMode
  /**
   * The exact text sent (trailing whitespace trimmed, as the API requires); the reply is
   * stripped of exactly this. Set for `native` and `instruct`.
   */
  sent?: string
  /** Why the prefill was not sent natively (`instruct` and `skip`). */
  reason?: PrefillFallbackReason
}

/**
 * The model capabilities {@link applyPrefill} looks at. A `thinkingMode` of `'adaptive-always'`
 * means no prefill can ever be sent, whatever `supportsPrefill` says.
 */
export type PrefillModel = Pick<ModelInfo, 'id' | 'supportsPrefill'> &
  Partial<Pick<ModelInfo, 'thinkingMode'>>

/**
 * The default `'instruct'`-mode instruction: asks the model to begin its reply with the prefill,
 * verbatim, and carry on from there.
 */
export function defaultInstruction(prefill: string): string {
  assertString(prefill, 'defaultInstruction', 'prefill')
  return (
    'Begin your reply with the text inside <reply_prefix> below, exactly as written and without ' +
    'the tags, then continue your reply naturally from where that text ends.\n' +
    `<reply_prefix>\n${prefill}\n</reply_prefix>`
  )
}

/**
 * Add `prefill` to a conversation, the way the model can take it: natively as a trailing assistant
 * message when `model.supportsPrefill` and thinking is off (neither for this call nor always on for
 * the model, `thinkingMode: 'adaptive-always'`); otherwise per `onUnsupported` —
 * `'instruct'` appends an instruction to the last user turn, `'skip'` leaves the messages as they
 * are, `'error'` throws a {@link PrefillRejectedError}. Trailing whitespace is trimmed from the
 * prefill (the API rejects it); blank prefills do nothing. Never mutates its input.
 */
export function applyPrefill(
  messages: readonly Message[],
  prefill: string | undefined,
  model: PrefillModel,
  options: ApplyPrefillOptions = {},
): AppliedPrefill {
  checkMessages(messages, 'applyPrefill', 'messages')
  assertString(prefill, 'applyPrefill', 'prefill', true)
  if (typeof model !== 'object' || model === null || typeof model.id !== 'string') {
    invalidArgument('applyPrefill', 'model', 'a ModelInfo (id, supportsPrefill)')
  }
  if (typeof options !== 'object' || options === null) {
    invalidArgument('applyPrefill', 'options', 'an object')
  }
  const sent = prefill?.trimEnd() ?? ''
  if (sent.trim() === '') return { messages: [...messages], mode: 'none' }
  const last = messages.at(-1)
  if (last === undefined) return { messages: [], mode: 'skip', reason: 'no-messages' }
  if (last.role === 'assistant') {
    return { messages: [...messages], mode: 'skip', reason: 'ends-with-assistant' }
  }
  const reason: PrefillFallbackReason | undefined =
    model.thinkingMode === 'adaptive-always'
      ? 'thinking'
      : !model.supportsPrefill
        ? 'model'
        : options.thinking
          ? 'thinking'
          : undefined
  if (reason === undefined) {
    const prefillMessage: Message = { role: 'assistant', content: [{ type: 'text', text: sent }] }
    return { messages: [...messages, prefillMessage], mode: 'native', sent }
  }
  return fallback(messages, sent, model, reason, options)
}

/** @internal The non-native branch of {@link applyPrefill}; also used after a provider 400. */
export function fallback(
  messages: readonly Message[],
  sent: string,
  model: PrefillModel,
  reason: PrefillFallbackReason,
  options: ApplyPrefillOptions,
): AppliedPrefill {
  const onUnsupported = options.onUnsupported ?? 'instruct'
  if (onUnsupported === 'error') {
    throw new PrefillRejectedError(
      reason === 'thinking'
        ? `Prefill is not allowed while extended thinking is on (model ${model.id})`
        : `Model ${model.id} does not accept an assistant prefill`,
      { details: { model: model.id, by: reason === 'thinking' ? 'thinking' : 'capability' } },
    )
  }
  if (onUnsupported === 'skip') return { messages: [...messages], mode: 'skip', reason }
  const out = [...messages]
  const lastIndex = out.length - 1
  const last = out[lastIndex]!
  const instruction = (options.instruction ?? defaultInstruction)(sent)
  // A blank line after preceding text, so formats that join a message's text blocks (transcripts,
  // ChatML, completions) never glue the instruction onto the user's last words.
  const prev = last.content.at(-1)
  const text = prev?.type === 'text' && prev.text.trim() !== '' ? `\n\n${instruction}` : instruction
  out[lastIndex] = { ...last, content: [...last.content, { type: 'text', text }] }
  return { messages: out, mode: 'instruct', sent, reason }
}

/**
 * {@link applyPrefill}, returning only the messages: the assistant prefill appended (or the
 * instruct fallback, or nothing — see `onUnsupported`).
 */
export function injectPrefill(
  messages: readonly Message[],
  prefill: string | undefined,
  model: PrefillModel,
  options: ApplyPrefillOptions = {},
): Message[] {
  return applyPrefill(messages, prefill, model, options).messages
}
