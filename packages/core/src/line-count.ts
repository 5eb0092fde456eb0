import { invalidArgument } from './errors.js'

/**
 * The one line-count rule of contextkit, used by every function of every package that reports
 * `lines` (context-metadata's hints, preload's file headings):
 *
 * - A line terminator is `\r\n`, `\n`, or a lone `\r` (each counts once).
 * - `lines` = number of terminators, plus one if any character follows the last terminator.
 *   So a trailing terminator does not start an extra line, but a blank line before it does:
 *   `''` → 0, `'a'` → 1, `'a\n'` → 1, `'a\n\n'` → 2, `'a\r\nb'` → 2, `'a\rb\r'` → 2.
 * - A leading U+FEFF (byte order mark) is not content: `'\uFEFF'` → 0.
 * - U+2028 / U+2029 and other Unicode separators are not terminators.
 *
 * Why a lone `\r` ends a line here (`countLines('a\rb')` → 2): `lines` describes the structure
 * the model and the parsers will see. Classic Mac and some spreadsheet exports end lines with
 * `\r` alone; papaparse, context-metadata's NDJSON and CSV counters, and a model splitting the
 * text with `/\r\n|\n|\r/` all see two lines (two records) there, so reporting 1 would
 * contradict the record count. A count of `\n` only (as in `wc -l`) answers 1 and suits byte-
 * oriented tools, not a prompt.
 *
 * Throws a `ValidationError` when `text` is not a string.
 */
export function countLines(text: string): number {
  if (typeof text !== 'string') {
    invalidArgument('countLines', 'text', 'a string', text)
  }
  const counter = new LineCounter()
  counter.push(text)
  return counter.result().lines
}

/** Result of a {@link LineCounter}. */
export interface LineCount {
  /** Lines so far: line breaks, plus one for a last line without one. */
  lines: number
  /** `\n` not preceded by `\r`. */
  lf: number
  /** `\r\n` pairs. */
  crlf: number
  /** `\r` not followed by `\n`. */
  cr: number
}

/**
 * Counts lines by the rule of {@link countLines} over text given in chunks of any size
 * (a `\r\n` split across two chunks counts once). Memory use is constant.
 */
export class LineCounter {
  private lf = 0
  private crlf = 0
  private cr = 0
  private pendingCR = false
  private tailOpen = false
  private started = false

  /** Feed the next chunk of text. */
  push(chunk: string): void {
    const len = chunk.length
    if (len === 0) return
    let start = 0
    if (!this.started) {
      this.started = true
      if (chunk.charCodeAt(0) === 0xfeff) start = 1
    }
    if (this.pendingCR && start < len) {
      this.pendingCR = false
      if (chunk.charCodeAt(start) === 10) {
        this.crlf++
        start++
      } else {
        this.cr++
      }
    }
    if (start >= len) return
    let n = 0
    let i = chunk.indexOf('\n', start)
    while (i !== -1) {
      n++
      i = chunk.indexOf('\n', i + 1)
    }
    let crlf = 0
    let j = chunk.indexOf('\r', start)
    while (j !== -1) {
      if (j === len - 1) {
        this.pendingCR = true
        break
      }
      if (chunk.charCodeAt(j + 1) === 10) crlf++
      else this.cr++
      j = chunk.indexOf('\r', j + 1)
    }
    this.crlf += crlf
    this.lf += n - crlf
    const last = chunk.charCodeAt(len - 1)
    this.tailOpen = last !== 10 && last !== 13
  }

  /** Counts so far, as if the text ended here. */
  result(): LineCount {
    const cr = this.cr + (this.pendingCR ? 1 : 0)
    const terminators = this.lf + this.crlf + cr
    return { lines: terminators + (this.tailOpen ? 1 : 0), lf: this.lf, crlf: this.crlf, cr }
  }
}
