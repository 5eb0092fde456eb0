import { assertArray, assertObject } from './errors.js'
import type { ContentBlock, Message, Role, Usage } from './message-schemas.js'

/** Build a message holding one text block. */
export function textMessage(
  role: Role,
  text: string,
  extra: Pick<Message, 'participant' | 'cacheBreakpoint'> = {},
): Message {
  return { role, content: [{ type: 'text', text }], ...extra }
}

/** Concatenate the text blocks of a message (or of a content list), in order, with no separator. */
export function textOf(source: Message | readonly ContentBlock[]): string {
  if (!Array.isArray(source)) {
    assertObject(source, 'textOf', 'source')
    assertArray((source as Message).content, 'textOf', 'source.content')
  }
  const blocks = Array.isArray(source) ? source : (source as Message).content
  let out = ''
  for (const block of blocks as readonly ContentBlock[]) {
    if (block.type === 'text') out += block.text
  }
  return out
}

/** An empty usage record. */
export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
}
