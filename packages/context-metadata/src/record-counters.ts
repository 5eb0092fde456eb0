/**
 * Streaming record counters. Each takes text in chunks of any size and keeps constant state,
 * so the same code counts a string in memory and a file larger than memory. They scan with
 * `indexOf` jumps (over lines, quoted fields and JSON strings) rather than char by char where
 * they can.
 */

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

/**
 * Counts CSV records quote-aware (RFC 4180 as papaparse reads it): a `"` opens a quoted field
 * only at the start of a field (after the delimiter or a line break); inside, `""` is a literal
 * quote and line breaks belong to the field. Blank lines are not records. The count includes a
 * header row and a `sep=` line; the caller subtracts them. With `expectedFields` it also counts
 * the records with another number of fields (delimiters outside quotes + 1).
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

  /**
   * @param delimiter the field delimiter (one character).
   * @param options field-count checking.
   */
  constructor(delimiter: string, options: CsvCounterOptions = {}) {
    this.delimiter = delimiter.charAt(0)
    this.delim = delimiter.charCodeAt(0)
    this.expected = options.expectedFields ?? 0
    this.skip = options.skipRecords ?? 0
  }

  /** Records (after the skipped ones) whose field count differs from `expectedFields`. */
  raggedRows(): number {
    return this.ragged + (this.hasContent && this.isRagged() ? 1 : 0)
  }

  private isRagged(): boolean {
    return this.expected > 0 && this.count >= this.skip && this.fields !== this.expected
  }

  private endRecord(): void {
    if (this.isRagged()) this.ragged++
    this.count++
    this.hasContent = false
    this.fields = 1
  }

  /** Feed the next chunk of text. */
  push(s: string): void {
    const len = s.length
    if (len === 0) return
    let pos = 0
    if (this.quotePending) {
      this.quotePending = false
      if (s.charCodeAt(0) === 34) pos = 1
      else this.inQuotes = false
    }
    let n = -2
    let r = -2
    let q = -2
    let d = this.expected > 0 ? -2 : -1
    while (pos < len) {
      if (this.inQuotes) {
        const e = s.indexOf('"', pos)
        if (e === -1) {
          pos = len
          break
        }
        if (e === len - 1) {
          this.quotePending = true
          pos = len
          break
        }
        if (s.charCodeAt(e + 1) === 34) {
          pos = e + 2
          continue
        }
        this.inQuotes = false
        pos = e + 1
        continue
      }
      if (n !== -1 && n < pos) n = s.indexOf('\n', pos)
      if (r !== -1 && r < pos) r = s.indexOf('\r', pos)
      if (q !== -1 && q < pos) q = s.indexOf('"', pos)
      if (d !== -1 && d < pos) d = s.indexOf(this.delimiter, pos)
      const br = n === -1 ? r : r === -1 ? n : Math.min(n, r)
      if (d !== -1 && (br === -1 || d < br) && (q === -1 || d < q)) {
        this.hasContent = true
        this.fields++
        pos = d + 1
        continue
      }
      if (q !== -1 && (br === -1 || q < br)) {
        this.hasContent = true
        const before = q === 0 ? this.prev : s.charCodeAt(q - 1)
        if (before === this.delim || before === 10 || before === 13) this.inQuotes = true
        pos = q + 1
        continue
      }
      const end = br === -1 ? len : br
      if (!this.hasContent && hasContent(s, pos, end)) this.hasContent = true
      if (br === -1) break
      if (this.hasContent) this.endRecord()
      else this.fields = 1
      pos = br + 1
    }
    this.prev = s.charCodeAt(len - 1)
  }

  /** Records so far (header and `sep=` line included). */
  result(): number {
    return this.count + (this.hasContent ? 1 : 0)
  }
}

/**
 * Counts NDJSON records and malformed lines over chunks: a non-blank line is a record when its
 * first non-blank character is `{` or `[` and its last is `}` or `]`, otherwise malformed. This
 * catches text lines and truncated records at the cost of two character looks per line (the
 * prefix is fully parsed during detection; see `hiddenBadLines` there).
 */
export class NdjsonRecordCounter implements RecordCounter {
  private records = 0
  private bad = 0
  private first = 0
  private last = 0

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
      if (pos < end) {
        let i = pos
        if (this.first === 0) {
          while (i < end && !isContent(s.charCodeAt(i))) i++
          if (i < end) this.first = s.charCodeAt(i)
        }
        if (this.first !== 0) {
          let k = end - 1
          while (k >= i && !isContent(s.charCodeAt(k))) k--
          if (k >= i) this.last = s.charCodeAt(k)
        }
      }
      if (br === -1) break
      this.endLine()
      pos = br + 1
    }
  }

  private endLine(): void {
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

function isContent(c: number): boolean {
  return c > 32 && c !== 0xfeff
}

function isRecordLine(first: number, last: number): boolean {
  return (first === 123 || first === 91) && (last === 125 || last === 93)
}
