import { assertObject, invalidArgument, type ModelInfo } from '@contextkit/core'
import { NativeFormatter } from './native-formatter.js'
import type { Formatter } from './types.js'
import { rejectsPrefill } from './validate.js'

/** The model facts {@link formatterFor} reads (`thinkingMode: 'adaptive-always'` rules out a prefill too). */
export type FormatterModel = Pick<ModelInfo, 'id' | 'supportsPrefill'> &
  Partial<Pick<ModelInfo, 'thinkingMode'>>

const PROBE = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'probe' }] }]

/**
 * Whether `formatter`'s chat requests end in an open assistant turn (a prefill), found by
 * rendering a one-message conversation: a format that always writes the model's turn itself
 * (`AnthropicXmlFormatter`) does; a plain chat format (`NativeFormatter`) does not; a prompt-string
 * format (ChatML, completions) sends no chat messages at all, so a chat model's prefill rule
 * does not apply to it.
 */
export function endsWithAssistantTurn(formatter: Formatter): boolean {
  assertObject(formatter, 'endsWithAssistantTurn', 'formatter')
  if (!formatter.usesPrefill) return false
  try {
    const probe = formatter.buildMessages(PROBE)
    return probe.messages[probe.messages.length - 1]?.role === 'assistant'
  } catch {
    // a format that cannot render the probe is judged by what it says of itself
    return true
  }
}

/** Whether `model` accepts requests built by `formatter` (see {@link formatterFor}). */
export function modelAcceptsFormat(model: FormatterModel, formatter: Formatter): boolean {
  assertObject(model, 'modelAcceptsFormat', 'model')
  assertObject(formatter, 'modelAcceptsFormat', 'formatter')
  return !rejectsPrefill(model) || !endsWithAssistantTurn(formatter)
}

/**
 * The formatter to build a request for `model` with: `prefer` when the model accepts its
 * requests, else a {@link NativeFormatter} (plain user/assistant messages, native tools), since a
 * model that rejects an assistant prefill (Claude 4.6 and later, or one whose thinking is always
 * on) answers every request of a format that ends in an open assistant turn with a 400. Default `prefer`: `NativeFormatter`.
 *
 * This is where the prefill decision lives: call it per request (a loop calls it again after a
 * provider said the model takes no prefill, with `supportsPrefill: false`), and pass the same
 * `model` to `buildMessages`, which then refuses a `prefill` the model cannot take.
 *
 * @example formatterFor(getModelInfo('claude-sonnet-4-6'), new AnthropicXmlFormatter()).name // 'native'
 */
export function formatterFor(
  model: FormatterModel,
  prefer: Formatter = new NativeFormatter(),
): Formatter {
  if (typeof model !== 'object' || model === null || typeof model.supportsPrefill !== 'boolean') {
    invalidArgument('formatterFor', 'model', 'a ModelInfo ({ id, supportsPrefill })', model)
  }
  if (typeof prefer !== 'object' || prefer === null || typeof prefer.buildMessages !== 'function') {
    invalidArgument('formatterFor', 'prefer', 'a formatter', prefer)
  }
  return modelAcceptsFormat(model, prefer) ? prefer : new NativeFormatter()
}
