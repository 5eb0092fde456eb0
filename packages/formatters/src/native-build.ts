import { type Message, textMessage } from '@contextkit/core'
import type { UnsupportedMediaPolicy } from './media.js'
import { toTemplateMessages } from './native-conversation.js'
import {
  NATIVE_GENERATION_PROMPT,
  NATIVE_STOPS,
  type NativeToolFamily,
  renderNative,
  type TemplateMessage,
} from './native-tool-formats.js'
import { mergeStops } from './participants.js'
import { systemText } from './system-prompt.js'
import type { BuildOptions, FormattedRequest, FormatWarning } from './types.js'
import { withUserSections } from './user-sections.js'
import { parseBuildOptions, parseMessages } from './validate.js'

/** What the formatter passes to {@link buildNativeRequest}. */
export interface NativeBuildContext {
  family: NativeToolFamily
  guard: (text: string, where: string) => string
  media: UnsupportedMediaPolicy
  warnOnStrip: boolean
  bos: boolean
  dateString: string
}

/** The continued final assistant turn as the family opens it (Mistral puts a space first). */
function continuation(family: NativeToolFamily, last: TemplateMessage): string {
  const text = last.content.trimEnd()
  if (text.trim() === '') return ''
  return family === 'mistral' ? ` ${text.trim()}` : text
}

/**
 * `ChatMLFormatter.buildMessages` with `toolFormat: 'native'`: the conversation in the family's
 * own format (see `native-tool-formats.ts`), then the model's turn opened; a final assistant
 * message without calls is continued, and the prefill goes after it, as with the other tool formats.
 */
export function buildNativeRequest(
  input: readonly Message[],
  buildOptions: BuildOptions | undefined,
  ctx: NativeBuildContext,
): FormattedRequest {
  const options = parseBuildOptions(buildOptions)
  const conversation = withUserSections(parseMessages(input), options.userSections)
  const prefix = options.contextPrefix
  const messages =
    prefix === undefined || prefix === ''
      ? conversation
      : [...(typeof prefix === 'string' ? [textMessage('user', prefix)] : prefix), ...conversation]
  const warnings: FormatWarning[] = []
  const turns = toTemplateMessages(messages, {
    guard: ctx.guard,
    media: ctx.media,
    warnOnStrip: ctx.warnOnStrip,
    formatter: 'chatml',
    warnings,
  })
  const last = turns[turns.length - 1]
  const continues = last?.role === 'assistant' && last.calls === undefined
  const system = ctx.guard(systemText(options.system, undefined), 'system')
  const render = {
    system,
    tools: options.tools ?? [],
    bos: ctx.bos,
    dateString: ctx.dateString,
    warnings,
  }
  let prompt = renderNative(ctx.family, continues ? turns.slice(0, -1) : turns, render)
  prompt += NATIVE_GENERATION_PROMPT[ctx.family]
  let turn = continues && last ? continuation(ctx.family, last) : ''
  const prefill = ctx.guard((options.prefill ?? '').trimEnd(), 'prefill')
  if (options.thinking) {
    warnings.push({
      code: 'thinking_not_opened',
      message: `the ${ctx.family} native tool format has no thinking block to open`,
      details: { formatter: 'chatml' },
    })
  }
  if (prefill !== '') turn += turn === '' || /^\s/.test(prefill) ? prefill : `\n\n${prefill}`
  prompt += turn
  const request: FormattedRequest = {
    messages: [],
    system: [],
    prompt,
    stopSequences: mergeStops([...NATIVE_STOPS[ctx.family]], options.stopSequences),
    cacheMarkersApplied: 0,
    warnings,
  }
  if (turn !== '') request.assistantPrefill = turn
  return request
}
