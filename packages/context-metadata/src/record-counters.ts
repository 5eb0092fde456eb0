/**
 * Streaming record counters. Each takes text in chunks of any size and keeps constant state,
 * so the same code counts a string in memory and a file larger than memory. They jump with
 * `indexOf` (the CSV counter also matches runs of well-formed records natively), never
 * calling `indexOf` for one character from two places (see {@link CsvRecordCounter}).
 */

import { assertOptions, assertString } from '@contextkit/core'
import { RUN, RunPacer, releaseLastMatch, viewOf } from './run-pacer.js'

/** A counter fed with chunks of text. */
export interface RecordCounter {
  /** Feed the next chunk of text (any size; chunk boundaries may fall anywhere). */
  push(chunk: string): void
  /** Records counted so far, as if the text ended here. */
  result(): number
}

/** `true` when `s[from, to)` has a character other than whitespace/controls or a BOM. */
function hasContent(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i)
    if (c > 32 && c !== 0xfeff) return true
  }
  return false
}

/**
 * Counts non-blank lines (NDJSON records). Lines end at `\n`, `\r\n` or `\r`; a line of only
 * whitespace is blank. U+2028 inside a JSON string is not a line break.
 */
export class NonBlankLineCounter implements RecordCounter {
  private count = 0
  private lineHasContent = false

  /** Feed the next chunk of text. */
  push(s: string): void {
    const len = s.length
    let pos = 0
    let n = -2
    let r = -2
    while (pos < len) {
      if (n !== -1 && n < pos) n = s.indexOf('\n', pos)
      if (r !== -1 && r < pos) r = s.indexOf('\r', pos)
      const br = n === -1 ? r : r === -1 ? n : Math.min(n, r)
      const end = br === -1 ? len : br
      if (!this.lineHasContent && hasContent(s, pos, end)) this.lineHasContent = true
      if (br === -1) break
      if (this.lineHasContent) {
        this.count++
        this.lineHasContent = false
      }
      pos = br + 1
    }
  }

  /** Non-blank lines so far. */
  result(): number {
    return this.count + (this.lineHasContent ? 1 : 0)
  }
}

/** Options of a {@link CsvRecordCounter}. */
export interface CsvCounterOptions {
  /** Count the records whose number of fields differs from this (see `raggedRows`). */
  expectedFields?: number
  /** Leading records left out of the field-count check (a header, a `sep=` line). Default 0. */
  skipRecords?: number
}

/** Sticky patterns that match runs of well-formed records. */
interface RunPatterns {
  long: RegExp
  mid: RegExp
  one: RegExp
}

/**
 * Patterns for 64, 8 and 1 records that each have exactly `fields` fields and end in a line
 * break. A field is quoted (`"…"` with `""` escapes; line breaks allowed inside) or has no
 * quote, delimiter or line break. Every alternative starts with a different character, so a
 * match has one reading, the one the character-by-character rules give.
 */
function runPatterns(delimiter: string, fields: number): RunPatterns | undefined {
  if (fields < 2 || delimiter.length !== 1 || '"\r\n'.includes(delimiter)) return undefined
  const d = `\\u${delimiter.charCodeAt(0).toString(16).padStart(4, '0')}`
  const field = `(?:"[^"]*(?:""[^"]*)*"|[^"\\r\\n${d}]*)`
  const record = `${field}(?:${d}${field}){${fields - 1}}(?:\\r\\n?|\\n)`
  return {
    long: new RegExp(`(?:${record}){${RUN}}`, 'y'),
    mid: new RegExp(`(?:${record}){8}`, 'y'),
    one: new RegExp(record, 'y'),
  }
}

/**
 * Counts CSV records quote-aware (RFC 4180 as papaparse reads it): a `"` opens a quoted field
 * only at the start of a field (after the delimiter or a line break); inside, `""` is a literal
 * quote and line breaks belong to the field. Blank lines are not records. The count includes a
 * header row and a `sep=` line; the caller subtracts them. With `expectedFields` it also counts
 * the records with another number of fields (delimiters outside quotes + 1).
 *
 * Two speeds. With `expectedFields` ≥ 2, runs of records with exactly that many fields are
 * matched by one sticky regular expression per 64 records (native code, no per-record work);
 * anything else (a ragged row, a blank line, a stray quote, a chunk boundary) is read by a
 * state machine that jumps from one quote, line break or delimiter to the next with `indexOf`.
 * Tries are paced by a `RunPacer` (after a miss the next waits for 1, 2, 4, … records,
 * and each reads a bounded view), so a file the pattern never fits costs little. Each
 * searched character has exactly one `indexOf` call
 * site: two identical `s.indexOf('"', pos)` calls on two branches are merged by TurboFan's
 * value numbering and the merged call is scheduled above the branch, so it would run on every
 * step and scan to the end of a chunk without quotes (see `src/jit-regression.test.ts`).
 */
export class CsvRecordCounter implements RecordCounter {
  private count = 0
  private hasContent = false
  private inQuotes = false
  private quotePending = false
  private prev = 10
  private fields = 1
  private ragged = 0
  private readonly delim: number
  private readonly delimiter: string
  private readonly expected: number
  private readonly skip: number
  private runs: RunPatterns | undefined
  /** Where the last run matched by `run` ends. */
  private runEnd = 0
  /** When the next run try is due (a chance per record start), and its view. */
  private readonly pacer = new RunPacer()

  /**
   * @param delimiter - the field delimiter (one character).
   * @param options - field-count checking.
   */
  constructor(delimiter: string, options: CsvCounterOptions = {}) {
    assertString(delimiter, 'new CsvRecordCounter', 'delimiter')
    assertOptions(options, 'new CsvRecordCounter')
    this.delimiter = delimiter.charAt(0)
    this.delim = delimiter.charCodeAt(0)
    this.expected = options.expectedFields ?? 0
    this.skip = options.skipRecords ?? 0
    this.runs = runPatterns(this.delimiter, this.expected)
  }

  /** Records (after the skipped ones) whose field count differs from `expectedFields`. */
  raggedRows(): number {
    return this.ragged + (this.hasContent && this.isRagged() ? 1 : 0)
  }

  private isRagged(): boolean {
    return this.expected > 0 && this.count >= this.skip && this.fields !== this.expected
  }

  /**
   * Records matched by the run patterns from `pos`, a record start (0 when none); the match
   * then ends at `runEnd`. The patterns read a bounded view (`viewOf`), so a failed
   * try never reads a huge quoted field again and again; the state machine reads records that
   * long.
   */
  private run(s: string, pos: number): number {
    const runs = this.runs
    if (!runs) return 0
    const { view, at } = viewOf(s, pos, this.pacer.window)
    try {
      let found = 0
      let re = runs.long
      re.lastIndex = at
      if (re.test(view)) found = RUN
      else {
        re = runs.mid
        re.lastIndex = at
        if (re.test(view)) found = 8
        else {
          re = runs.one
          re.lastIndex = at
          if (re.test(view)) found = 1
        }
      }
      if (found > 0) {
        this.runEnd = pos + re.lastIndex - at
        this.pacer.hit(found, this.runEnd - pos)
      } else this.pacer.miss()
      return found
    } catch {
      // a regular expression engine limit: the state machine alone is always right
      this.runs = undefined
      return 0
    }
  }

  /** Feed the next chunk of text. */
  push(s: string): void {
    const len = s.length
    if (len === 0) return
    // State in locals, written back at the end. Next positions: -2 not searched yet, -1 none.
    const delim = this.delim
    const expected = this.expected
    const skip = this.skip
    let count = this.count
    let content = this.hasContent
    let fields = this.fields
    let ragged = this.ragged
    let inQuotes = this.inQuotes
    let pos = 0
    if (this.quotePending) {
      this.quotePending = false
      if (s.charCodeAt(0) === 34) pos = 1
      else inQuotes = false
    }
    // where the current record's text starts in this chunk (blank or not is decided at its end)
    let start = pos
    // a record starts at `start` right after a line break (or at the start of the text)
    let lineStart = this.prev === 10 || this.prev === 13
    let q = -2
    let n = -2
    let r = -2
    let d = this.delimiter === '' ? -1 : -2
    while (pos < len) {
      if (lineStart && this.runs !== undefined && !inQuotes && fields === 1 && !content) {
        if (this.pacer.due()) {
          const matched = this.run(s, pos)
          if (matched > 0) {
            count += matched
            pos = this.runEnd
            start = pos
            continue
          }
        }
        lineStart = false
      }
      // the only quote search: inside and outside quoted fields alike
      if (q !== -1 && q < pos) q = s.indexOf('"', pos)
      if (inQuotes) {
        if (q === -1) {
          pos = len
          break
        }
        if (q === len - 1) {
          this.quotePending = true
          pos = len
          break
        }
        if (s.charCodeAt(q + 1) === 34) pos = q + 2
        else {
          inQuotes = false
          pos = q + 1
        }
        continue
      }
      if (n !== -1 && n < pos) n = s.indexOf('\n', pos)
      if (r !== -1 && r < pos) r = s.indexOf('\r', pos)
      if (d !== -1 && d < pos) d = s.indexOf(this.delimiter, pos)
      const br = n === -1 ? r : r === -1 ? n : Math.min(n, r)
      // the nearest of delimiter, quote and line break; a delimiter wins a tie, as in a
      // character-by-character reading that tests for the delimiter first
      if (d !== -1 && (br === -1 || d <= br) && (q === -1 || d <= q)) {
        fields++
        pos = d + 1
      } else if (q !== -1 && (br === -1 || q < br)) {
        content = true
        const before = q === 0 ? this.prev : s.charCodeAt(q - 1)
        if (before === delim || before === 10 || before === 13) inQuotes = true
        pos = q + 1
      } else if (br !== -1) {
        // a record has content when it had a delimiter, a quote, or a visible character
        if (content || fields > 1 || hasContent(s, start, br)) {
          if (expected > 0 && count >= skip && fields !== expected) ragged++
          count++
        }
        content = false
        fields = 1
        pos = br + 1
        start = pos
        lineStart = true
      } else break
    }
    if (!content && (fields > 1 || hasContent(s, start, len))) content = true
    this.count = count
    this.hasContent = content
    this.fields = fields
    this.ragged = ragged
    this.inQuotes = inQuotes
    this.prev = s.charCodeAt(len - 1)
    if (this.runs) releaseLastMatch()
  }

  /** Records so far (header and `sep=` line included). */
  result(): number {
    return this.count + (this.hasContent ? 1 : 0)
  }
}

/**
 * NDJSON lines as a record counter sees them: the records and malformed lines ended so far, and
 * the first and last non-blank character codes of the line still open (`first` 0: nothing yet).
 * A non-blank line is a record when its first is `{` or `[` and its last is `}` or `]`. Shared
 * by the counter over text and the one over bytes, which differ only in how they find the two.
 */
export class RecordLineTally {
  records = 0
  bad = 0
  first = 0
  last = 0

  /** Close the open line (nothing when it was blank). */
  endLine(): void {
    if (this.first === 0) return
    if (isRecordLine(this.first, this.last)) this.records++
    else this.bad++
    this.first = 0
    this.last = 0
  }

  /** Records so far (lines that look like a JSON object or array). */
  result(): number {
    return this.records + (this.first !== 0 && isRecordLine(this.first, this.last) ? 1 : 0)
  }

  /** Non-blank lines so far that do not look like a JSON object or array. */
  malformed(): number {
    return this.bad + (this.first !== 0 && !isRecordLine(this.first, this.last) ? 1 : 0)
  }
}

/**
 * Counts NDJSON records and malformed lines over chunks: a non-blank line is a record when its
 * first non-blank character is `{` or `[` and its last is `}` or `]`, otherwise malformed. This
 * catches text lines and truncated records at the cost of two character looks per line (the
 * prefix is fully parsed during detection; see `hiddenBadLines` there).
 */
export class NdjsonRecordCounter implements RecordCounter {
  private readonly tally = new RecordLineTally()

  /** Feed the next chunk of text. */
  push(s: string): void {
    const t = this.tally
    const len = s.length
    let pos = 0
    let n = -2
    let r = -2
    while (pos < len) {
      if (n !== -1 && n < pos) n = s.indexOf('\n', pos)
      if (r !== -1 && r < pos) r = s.indexOf('\r', pos)
      const br = n === -1 ? r : r === -1 ? n : Math.min(n, r)
      const end = br === -1 ? len : br
      if (pos < end) {
        let i = pos
        if (t.first === 0) {
          while (i < end && !isContent(s.charCodeAt(i))) i++
          if (i < end) t.first = s.charCodeAt(i)
        }
        if (t.first !== 0) {
          let k = end - 1
          while (k >= i && !isContent(s.charCodeAt(k))) k--
          if (k >= i) t.last = s.charCodeAt(k)
        }
      }
      if (br === -1) break
      t.endLine()
      pos = br + 1
    }
  }

  /** Records so far (lines that look like a JSON object or array). */
  result(): number {
    return this.tally.result()
  }

  /** Non-blank lines so far that do not look like a JSON object or array. */
  malformed(): number {
    return this.tally.malformed()
  }
}

function isContent(c: number): boolean {
  return c > 32 && c !== 0xfeff
}

function isRecordLine(first: number, last: number): boolean {
  return (first === 123 || first === 91) && (last === 125 || last === 93)
}
