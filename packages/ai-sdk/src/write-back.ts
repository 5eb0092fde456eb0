import { type Message, renderSections, type Section, type TurnContext } from '@contextkit/core'
import { stableFirst } from '@contextkit/core/cache'
import { type CacheMarks, markedMessage, markGroup } from './cache-marks.js'
import { type CorePrompt, fromCoreMessage, type Part, type PromptMessage } from './prompt.js'

/**
 * The system messages of the turn: its stable sections (first) then its volatile ones, each group
 * one message, except that a caller's system message with `providerOptions` (its own cache
 * marker, say) stays a message of its own, written back with them. With `marks.system`, the last
 * stable message gets our marker (the end of the stable part).
 */
function systemMessages(
  system: readonly Section[],
  options: ReadonlyMap<string, Record<string, unknown>>,
  marks: CacheMarks | undefined,
): PromptMessage[] {
  const ordered = stableFirst(system)
  const out: PromptMessage[] = []
  let group: Section[] = []
  const flush = (providerOptions?: Record<string, unknown>): void => {
    const content = renderSections(group)
    group = []
    if (content === '') return
    out.push(
      providerOptions ? { role: 'system', content, providerOptions } : { role: 'system', content },
    )
  }
  for (const s of ordered.filter((s) => s.cache === 'stable')) {
    const own = options.get(s.id)
    if (own) flush()
    group.push(s)
    if (own) flush(own)
  }
  flush()
  const last = out.at(-1)
  if (marks?.system && last) out[out.length - 1] = markedMessage(last, marks.control) ?? last
  group = ordered.filter((s) => s.cache !== 'stable')
  flush()
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
 * The AI SDK prompt of a prepared turn: its system sections (stable ones first, see
 * `systemMessages`), its messages — each one middleware left as it was written back exactly as the
 * caller sent it, changed or added ones converted —, its user sections in the last user message,
 * and, when `prefill` is given, a trailing assistant message the reply continues; `marks` are the
 * call's own prompt-cache breakpoints (see `planCache`).
 */
export function writeBack(
  turn: TurnContext,
  core: CorePrompt,
  prefill: string | undefined,
  marks?: CacheMarks,
): PromptMessage[] {
  const sources = new Map<Message, PromptMessage[]>()
  core.messages.forEach((m, i) => {
    sources.set(m, core.sources[i] ?? [])
  })
  let messages: PromptMessage[] = []
  turn.messages.forEach((m, i) => {
    const group = sources.get(m) ?? fromCoreMessage(m)
    messages.push(...(marks?.messages.has(i) ? markGroup(group, marks.control) : group))
  })
  messages = withUserSections(messages, turn.userSections)
  if (prefill !== undefined && prefill !== '') {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: prefill }] })
  }
  return [...systemMessages(turn.system, core.systemOptions, marks), ...messages]
}
