/**
 * Text inside a block whose end is a closing tag (`</thinking>`, `</think>`): how it is written
 * into a prompt so it can never close its own block, and how a stream parser reads it back.
 *
 * The rule is XML's, applied only where it matters: the renderer writes `<` as `&lt;` where it
 * starts the block's closing tag, and `&` as `&amp;` where it starts a character reference the
 * parser would decode; everything else is written as is. The parser decodes XML references
 * (`unescapeXml`) in the block's text, so `unescapeXml(escapeBlockText(t)) === t` for every `t`.
 */

import { assertArray, assertString } from '@contextkit/core'
import { unescapeXml } from './xml-escape.js'

/** Longest character reference `unescapeXml` decodes, `&` and `;` included (`&#x10FFFF;`). */
const MAX_REFERENCE = 10

/** Whether `unescapeXml` would decode a reference starting at `text[amp] === '&'`. */
function referenceAt(text: string, amp: number): boolean {
  const semi = text.indexOf(';', amp + 2)
  if (semi < 0 || semi - amp > 9) return false
  const ref = text.slice(amp, semi + 1)
  return unescapeXml(ref) !== ref
}

/**
 * Escape `text` for a block closed by any of `closingTags` (e.g. `['</thinking', '</ns:thinking']`,
 * written without the final `>`): only a `<` that starts one of them, and only an `&` that
 * starts a decodable reference, are escaped. Reversed exactly by `unescapeXml`.
 */
export function escapeBlockText(text: string, closingTags: readonly string[]): string {
  assertString(text, 'escapeBlockText', 'text')
  assertArray(closingTags, 'escapeBlockText', 'closingTags')
  if (text.indexOf('&') < 0 && text.indexOf('</') < 0) return text
  let out = ''
  let last = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 38 && referenceAt(text, i)) {
      out += `${text.slice(last, i)}&amp;`
      last = i + 1
    } else if (c === 60 && closingTags.some((t) => text.startsWith(t, i))) {
      out += `${text.slice(last, i)}&lt;`
      last = i + 1
    }
  }
  return out + text.slice(last)
}

/**
 * Streaming reader of a block's text: decodes references across chunk boundaries (holding back
 * at most a trailing `&…` of up to 9 characters), and optionally drops one line break right after
 * the opening tag and one right before the closing tag (the chat templates' `<think>\n…\n</think>`).
 * The same text yields the same decoded output however it is chunked.
 */
export class BlockTextReader {
  readonly #trimNewlines: boolean
  #atStart = true
  #heldNewline = false
  #heldRef = ''

  constructor(trimNewlines: boolean) {
    this.#trimNewlines = trimNewlines
  }

  /** A new block opens. */
  start(): void {
    this.#atStart = true
    this.#heldNewline = false
    this.#heldRef = ''
  }

  /** Raw text of the block; returns the decoded text that is certain so far. */
  push(raw: string): string {
    if (raw === '') return ''
    let text = raw
    if (this.#trimNewlines) {
      if (this.#atStart && text.charCodeAt(0) === 10) text = text.slice(1)
      this.#atStart = false
      if (text === '') return ''
      if (this.#heldNewline) text = `\n${text}`
      this.#heldNewline = text.charCodeAt(text.length - 1) === 10
      if (this.#heldNewline) text = text.slice(0, -1)
    }
    this.#atStart = false
    return this.#decode(this.#heldRef + text)
  }

  /** The closing tag arrived (or the stream ended): the rest, minus a held line break. */
  end(): string {
    const rest = this.#heldRef
    this.start()
    return rest
  }

  #decode(text: string): string {
    const amp = text.lastIndexOf('&')
    if (amp >= 0 && text.length - amp < MAX_REFERENCE && text.indexOf(';', amp + 2) < 0) {
      this.#heldRef = text.slice(amp)
      return unescapeXml(text.slice(0, amp))
    }
    this.#heldRef = ''
    return unescapeXml(text)
  }
}
