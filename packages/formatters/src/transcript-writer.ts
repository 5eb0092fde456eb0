import type { FormattedBlock, FormattedMessage } from './types.js'

/** White space `String.prototype.trimEnd` removes (`\s` is the same set), at the end. */
const TRAILING_SPACE = /\s$/

/**
 * Accumulates role segments; text is appended to the last unsealed text block of that role.
 * A text block is only opened by non-whitespace text (the API rejects whitespace-only text
 * blocks): whitespace that would open one is held and written in front of the next text of the
 * same role, or dropped when a non-text block or the other role comes first.
 */
export class TranscriptWriter {
  readonly #messages: FormattedMessage[] = []
  #sealed = true
  #heldSpace = ''
  #heldRole: 'user' | 'assistant' = 'assistant'
  /**
   * The text block written to last and the last text appended to it: `trimEnd` looks only at
   * that text, instead of reading (and so flattening) the whole transcript.
   */
  #tailBlock: FormattedBlock | undefined
  #tail = ''

  /** Append text for `role` (joins the open text block of that role when there is one). */
  text(role: 'user' | 'assistant', text: string): void {
    if (text === '') return
    const msg = this.#messages[this.#messages.length - 1]
    const lastBlock = msg?.content[msg.content.length - 1]
    if (msg && msg.role === role && lastBlock?.type === 'text' && !this.#sealed) {
      lastBlock.text += text
      this.#tailBlock = lastBlock
      this.#tail = text
      return
    }
    if (this.#heldRole !== role) this.#heldSpace = ''
    if (text.trim() === '') {
      this.#heldSpace += text
      this.#heldRole = role
      return
    }
    const block: FormattedBlock = { type: 'text', text: this.#heldSpace + text }
    this.block(role, block)
    this.#sealed = false
    this.#tailBlock = block
    this.#tail = text
  }

  /** Append a non-text block (image, tool block) for `role`; the next text opens a new block. */
  block(role: 'user' | 'assistant', block: FormattedBlock): void {
    this.#heldSpace = ''
    const msg = this.#messages[this.#messages.length - 1]
    if (msg && msg.role === role) msg.content.push(block)
    else this.#messages.push({ role, content: [block] })
    this.#sealed = true
  }

  /** The next text starts a new block (the current one carries a cache marker). */
  seal(): void {
    this.#sealed = true
  }

  /** The last block written, if any. */
  lastBlock(): FormattedBlock | undefined {
    const msg = this.#messages[this.#messages.length - 1]
    return msg?.content[msg.content.length - 1]
  }

  /** The request's final assistant content must not end in whitespace. */
  trimEnd(): void {
    const msg = this.#messages[this.#messages.length - 1]
    if (msg?.role !== 'assistant') return
    const last = msg.content[msg.content.length - 1]
    if (last !== undefined && last === this.#tailBlock && !TRAILING_SPACE.test(this.#tail)) return
    this.#tailBlock = undefined
    while (msg.content.length > 0) {
      const b = msg.content[msg.content.length - 1]!
      if (b.type !== 'text') return
      b.text = b.text.trimEnd()
      if (b.text !== '') return
      msg.content.pop()
    }
    if (msg.content.length === 0) this.#messages.pop()
  }

  /** The messages written so far. */
  messages(): FormattedMessage[] {
    return this.#messages
  }
}
