import { ConfigurationError } from '@contextkit/core'
import { CHAT_TEMPLATES, type ChatTemplate, isChatTemplatePreset } from './chat-templates.js'
import type { ChatMLFormatterOptions } from './chatml-formatter.js'
import { checkOptions } from './option-keys.js'
import { mergeStops } from './participants.js'

function checkTemplate(t: ChatTemplate): void {
  const strings = [t.begin, t.user.open, t.user.close, t.assistant.open, t.assistant.close]
  if (t.system) strings.push(t.system.open, t.system.close)
  const ok =
    strings.every((s) => typeof s === 'string') &&
    typeof t.trim === 'boolean' &&
    typeof t.alternate === 'boolean' &&
    Array.isArray(t.stopSequences) &&
    Array.isArray(t.specialTokens) &&
    [...t.stopSequences, ...t.specialTokens].every((s) => typeof s === 'string')
  if (!ok) throw new ConfigurationError('template is not a valid ChatTemplate')
}

/** The template with the token overrides of the seed's constructor applied. */
export function resolveTemplate(options: ChatMLFormatterOptions): ChatTemplate {
  const preset = options.preset ?? 'chatml'
  if (!isChatTemplatePreset(preset))
    throw new ConfigurationError(
      `preset must be one of ${Object.keys(CHAT_TEMPLATES).join(', ')}, got ${String(preset)}`,
    )
  const base = options.template ?? CHAT_TEMPLATES[preset]
  if (typeof base !== 'object' || base === null || !base.user || !base.assistant)
    throw new ConfigurationError('template is not a valid ChatTemplate')
  if (options.template !== undefined)
    checkOptions(options.template, 'ChatMLFormatter template', 'new ChatMLFormatter', 'template')
  const { systemToken, userToken, assistantToken, endToken } = options
  for (const [k, v] of Object.entries({ systemToken, userToken, assistantToken, endToken }))
    if (v !== undefined && typeof v !== 'string')
      throw new ConfigurationError(`${k} must be a string`)
  const turn = (open: string | undefined, t: { open: string; close: string }) => ({
    open: open ?? t.open,
    close: endToken ?? t.close,
  })
  const system =
    systemToken !== undefined
      ? { open: systemToken, close: endToken ?? base.system?.close ?? '' }
      : base.system && turn(undefined, base.system)
  const own = [systemToken, userToken, assistantToken, endToken]
    .map((t) => t?.trim() ?? '')
    .filter((t) => t !== '')
  const template: ChatTemplate = {
    ...base,
    user: turn(userToken, base.user),
    assistant: turn(assistantToken, base.assistant),
    stopSequences: mergeStops(endToken?.trim() ? [endToken.trim()] : [], base.stopSequences),
    specialTokens: [...new Set([...base.specialTokens, ...own])],
  }
  if (system) template.system = system
  else delete template.system
  checkTemplate(template)
  return template
}
