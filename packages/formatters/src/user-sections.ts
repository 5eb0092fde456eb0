import {
  assertArray,
  type ContentBlock,
  type Message,
  renderSections,
  type Section,
} from '@contextkit/core'

function isToolResultsOnly(message: Message): boolean {
  return message.content.length > 0 && message.content.every((b) => b.type === 'tool_result')
}

/**
 * Index of the current user turn: the last user message that is not only tool results (so in a
 * tool loop the sections stay with what the user asked, not with the latest results); `-1` when
 * there is none.
 */
export function currentUserTurn(messages: readonly Message[]): number {
  assertArray(messages, 'currentUserTurn', 'messages')
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role === 'user' && !isToolResultsOnly(m)) return i
  }
  return -1
}

/**
 * Render user sections (plan, context-file hint, preloaded files) into the current user turn, for
 * the request only: sections with `placement: 'before'` go in front of the user's own text, the
 * others after it, each joined by a blank line inside the message's first text block (so every
 * format keeps the blank line). Without a user turn the sections become a new user message at
 * the end. Returns new messages; the input is not mutated. Empty sections are skipped.
 */
export function withUserSections(
  messages: readonly Message[],
  sections: readonly Section[] | undefined,
): Message[] {
  assertArray(messages, 'withUserSections', 'messages')
  if (sections !== undefined) assertArray(sections, 'withUserSections', 'sections')
  if (!sections || sections.length === 0) return [...messages]
  const before = renderSections(sections.filter((s) => s.placement === 'before'))
  const after = renderSections(sections.filter((s) => s.placement !== 'before'))
  if (before === '' && after === '') return [...messages]
  const index = currentUserTurn(messages)
  const out = [...messages]
  if (index < 0) {
    const text = [before, after].filter((t) => t !== '').join('\n\n')
    out.push({ role: 'user', content: [{ type: 'text', text }] })
    return out
  }
  const target = messages[index]!
  const content: ContentBlock[] = [...target.content]
  const at = content.findIndex((b) => b.type === 'text')
  const first = content[at]
  if (first?.type === 'text') {
    const parts = [before, first.text, after].filter((t) => t !== '')
    content[at] = { type: 'text', text: parts.join('\n\n') }
  } else {
    if (before !== '') content.unshift({ type: 'text', text: before })
    if (after !== '') content.push({ type: 'text', text: after })
  }
  out[index] = { ...target, content }
  return out
}
