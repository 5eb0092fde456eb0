import type { Message, ToolResultBlock } from '@contextkit/core'
import { type UnsupportedMediaPolicy, unsupported } from './media.js'
import type { TemplateCall, TemplateMessage } from './native-tool-formats.js'
import type { FormatWarning } from './types.js'

/** How {@link toTemplateMessages} treats what a text prompt cannot carry. */
export interface TemplateConversionOptions {
  /** Guards special tokens in every text written (throws or escapes, per the formatter's policy). */
  guard: (text: string, where: string) => string
  media: UnsupportedMediaPolicy
  warnOnStrip: boolean
  formatter: string
  warnings: FormatWarning[]
}

function resultText(r: ToolResultBlock, index: number, o: TemplateConversionOptions): string {
  const text = r.content
    .map((c) => {
      if (c.type === 'text') return c.text
      unsupported(o.media, c, o.formatter, index, o.warnings, o.warnOnStrip)
      return '[image omitted]'
    })
    .join('\n')
  return r.isError ? `Error: ${text}` : text
}

/**
 * Core messages as the messages a family's chat template reads: a user message's tool results
 * become `tool` messages (an error one's text starts `Error: `) before its own text; an assistant
 * message's text is its content and its tool calls its `calls`; thinking, plain or redacted, is not
 * written (these templates have no place for it). Images follow the media policy.
 */
export function toTemplateMessages(
  messages: readonly Message[],
  o: TemplateConversionOptions,
): TemplateMessage[] {
  const out: TemplateMessage[] = []
  messages.forEach((m, index) => {
    const where = `message ${index}`
    let text = ''
    const calls: TemplateCall[] = []
    for (const b of m.content) {
      if (b.type === 'text') text += b.text
      else if (b.type === 'tool_call') calls.push({ id: b.id, name: b.name, input: b.input })
      else if (b.type === 'tool_result') {
        out.push({
          role: 'tool',
          content: o.guard(resultText(b, index, o), where),
          callId: b.toolCallId,
        })
      } else if (b.type === 'image')
        unsupported(o.media, b, o.formatter, index, o.warnings, o.warnOnStrip)
    }
    const content = o.guard(text, where)
    if (m.role === 'assistant') {
      out.push(
        calls.length > 0 ? { role: 'assistant', content, calls } : { role: 'assistant', content },
      )
    } else if (content !== '' || !m.content.some((b) => b.type === 'tool_result')) {
      out.push({ role: 'user', content })
    }
  })
  return out
}
