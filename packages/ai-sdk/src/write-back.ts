import { type Message, renderSections, type Section, type TurnContext } from '@contextkit/core'
import { type CorePrompt, fromCoreMessage, type Part, type PromptMessage } from './prompt.js'

/** Stable sections first, then the volatile ones, each group in its order. */
function stableFirst(sections: readonly Section[]): Section[] {
  return [
    ...sections.filter((s) => s.cache === 'stable'),
    ...sections.filter((s) => s.cache !== 'stable'),
  ]
}

function systemMessages(system: readonly Section[]): PromptMessage[] {
  const ordered = stableFirst(system)
  const stable = renderSections(ordered.filter((s) => s.cache === 'stable'))
  const volatile = renderSections(ordered.filter((s) => s.cache !== 'stable'))
  const out: PromptMessage[] = []
  if (stable !== '') out.push({ role: 'system', content: stable })
  if (volatile !== '') out.push({ role: 'system', content: volatile })
  return out
}

/** `sections` added to the last message that holds the user's own words (`before` ones first). */
function withUserSections(
  messages: PromptMessage[],
  sections: readonly Section[],
): PromptMessage[] {
  if (sections.length === 0) return messages
  const at = messages.findLastIndex((m) => m.role === 'user')
  const target = messages[at]
  if (target?.role !== 'user') return messages
  const before = renderSections(sections.filter((s) => s.placement === 'before'))
  const after = renderSections(sections.filter((s) => s.placement !== 'before'))
  const content: Part[] = [
    ...(before === '' ? [] : [{ type: 'text', text: before }]),
    ...target.content,
    ...(after === '' ? [] : [{ type: 'text', text: after }]),
  ]
  const out = [...messages]
  out[at] = { ...target, content }
  return out
}

/**
 * The AI SDK prompt of a prepared turn: its system sections (stable ones first, as up to two
 * system messages), its messages — each one middleware left as it was written back exactly as the
 * caller sent it, changed or added ones converted —, its user sections in the last user message,
 * and, when `prefill` is given, a trailing assistant message the reply continues.
 */
export function writeBack(
  turn: TurnContext,
  core: CorePrompt,
  prefill: string | undefined,
): PromptMessage[] {
  const sources = new Map<Message, PromptMessage[]>()
  core.messages.forEach((m, i) => {
    sources.set(m, core.sources[i] ?? [])
  })
  let messages: PromptMessage[] = []
  for (const m of turn.messages) messages.push(...(sources.get(m) ?? fromCoreMessage(m)))
  messages = withUserSections(messages, turn.userSections)
  if (prefill !== undefined && prefill !== '') {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: prefill }] })
  }
  return [...systemMessages(turn.system), ...messages]
}
