/**
 * `CsvRecordCounter` over UTF-8 byte runs, for {@link analyzeFile}: the same records and
 * ragged rows the text counter finds in the decoded text, without decoding it. The quote, the
 * line breaks and the delimiter are ASCII bytes, which never occur inside a multi-byte sequence
 * and decode to themselves, so the quote state follows the bytes exactly.
 */

/** What a CSV count needs from the detection: see `CsvRecordCounter`. */
export interface CsvCountSpec {
  /** The field delimiter (one character). */
  delimiter: string
  /** Count the records whose number of fields differs from this (0: none). */
  expectedFields: number
  /** Leading records left out of the field-count check (a header, a `sep=` line). */
  skipRecords: number
}

/**
 * `true` when a CSV with this delimiter can be counted on bytes: one ASCII character that is
 * not a quote nor a line break (a `sep=` line may name any character).
 */
export function countsOnBytes(delimiter: string): boolean {
  if (delimiter.length !== 1) return false
  const c = delimiter.charCodeAt(0)
  return c < 0x80 && c !== 34 && c !== 10 && c !== 13
}

/**
 * `true` when `b[from, to)` decodes to a character other than whitespace/controls (≤ U+0020)
 * or a BOM: any byte above 0x20 except a whole EF BB BF (always U+FEFF, since a decoder
 * restarts at a lead byte). Every other non-ASCII byte belongs to a visible character or to
 * U+FFFD.
 */
export function hasContentBytes(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = b[i] as number
    if (c <= 32) continue
    if (c === 0xef && i + 2 < to && b[i + 1] === 0xbb && b[i + 2] === 0xbf) {
      i += 2
      continue
    }
    return true
  }
  return false
}

// Slots of a ByteCsvCounter's state (the WebAssembly `csv` reads the same layout).
const COUNT = 0
const RAGGED = 1
const FIELDS = 2
const CONTENT = 3
const IN_QUOTES = 4
/** A quote ended the last run inside a quoted field: `""` or a closing quote? */
const QUOTE_PENDING = 5
/** The last byte of the last run (a line break before the first). */
const PREV = 6
const DELIM = 7
const EXPECTED = 8
const SKIP = 9

/**
 * Counts CSV records quote-aware over byte runs, by the rules of `CsvRecordCounter` (a `"`
 * opens a quoted field only at the start of a field; inside, `""` is a quote and line breaks
 * belong to the field; blank lines are not records), reading only the quotes, delimiters and
 * line breaks. Its state is ten integers (the slots above), so the WebAssembly twin
 * (`ByteCounts.csv`) can carry it on, run for run.
 */
export class ByteCsvCounter {
  /** The delimiter's byte. */
  readonly delim: number
  /** The state, in the layout the WebAssembly `csv` reads and writes. */
  readonly state = new Int32Array(10)

  /** @param spec - delimiter (see {@link countsOnBytes}) and field-count checking. */
  constructor(spec: CsvCountSpec) {
    this.delim = spec.delimiter.charCodeAt(0)
    const st = this.state
    st[FIELDS] = 1
    st[PREV] = 10
    st[DELIM] = this.delim
    st[EXPECTED] = spec.expectedFields
    st[SKIP] = spec.skipRecords
  }

  /**
   * Feed `b[from, to)` (a run ending on a sequence boundary), whose quotes, delimiters and line
   * breaks are `list[0, k)`, in order (see `ByteCounts.events`).
   */
  push(b: Uint8Array, from: number, to: number, list: Int32Array, k: number): void {
    if (to <= from) return
    const st = this.state
    const delim = this.delim
    const expected = st[EXPECTED] as number
    const skip = st[SKIP] as number
    let count = st[COUNT] as number
    let content = st[CONTENT] === 1
    let fields = st[FIELDS] as number
    let ragged = st[RAGGED] as number
    let inQuotes = st[IN_QUOTES] === 1
    let i = 0
    if (st[QUOTE_PENDING] === 1) {
      st[QUOTE_PENDING] = 0
      // the first listed byte is then this quote: `""` inside the field
      if (b[from] === 34) i = 1
      else inQuotes = false
    }
    let start = from
    for (; i < k; i++) {
      const p = list[i] as number
      const c = b[p] as number
      if (inQuotes) {
        if (c !== 34) continue
        if (p + 1 === to) {
          st[QUOTE_PENDING] = 1
          break
        }
        // an escaped quote is the next listed byte
        if (b[p + 1] === 34) i++
        else inQuotes = false
      } else if (c === delim) fields++
      else if (c === 34) {
        content = true
        const before = p === from ? (st[PREV] as number) : (b[p - 1] as number)
        if (before === delim || before === 10 || before === 13) inQuotes = true
      } else {
        if (content || fields > 1 || hasContentBytes(b, start, p)) {
          if (expected > 0 && count >= skip && fields !== expected) ragged++
          count++
        }
        content = false
        fields = 1
        start = p + 1
      }
    }
    if (!content && (fields > 1 || hasContentBytes(b, start, to))) content = true
    st[COUNT] = count
    st[CONTENT] = content ? 1 : 0
    st[FIELDS] = fields
    st[RAGGED] = ragged
    st[IN_QUOTES] = inQuotes ? 1 : 0
    st[PREV] = b[to - 1] as number
  }

  /** Records so far (header and `sep=` line included). */
  result(): number {
    return (this.state[COUNT] as number) + (this.state[CONTENT] as number)
  }

  /** Records (after the skipped ones) whose field count differs from `expectedFields`. */
  raggedRows(): number {
    const st = this.state
    const expected = st[EXPECTED] as number
    const open = st[CONTENT] === 1 && expected > 0 && (st[COUNT] as number) >= (st[SKIP] as number)
    return (st[RAGGED] as number) + (open && st[FIELDS] !== expected ? 1 : 0)
  }
}
