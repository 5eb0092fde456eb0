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

/**
 * Counts CSV records quote-aware (RFC 4180 as papaparse reads it): a `"` opens a quoted field
 * only at the start of a field (after the delimiter or a line break); inside, `""` is a literal
 * quote and line breaks belong to the field. Blank lines are not records. The count includes a
 * header row and a `sep=` line; the caller subtracts them.
 */
export class CsvRecordCounter implements RecordCounter {
  private count = 0
  private hasContent = false
  private inQuotes = false
  private quotePending = false
  private prev = 10
  private readonly delim: number

  /** @param delimiter the field delimiter (one character). */
  constructor(delimiter: string) {
    this.delim = delimiter.charCodeAt(0)
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
      const br = n === -1 ? r : r === -1 ? n : Math.min(n, r)
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
      if (this.hasContent) {
        this.count++
        this.hasContent = false
      }
      pos = br + 1
    }
    this.prev = s.charCodeAt(len - 1)
  }

  /** Records so far (header and `sep=` line included). */
  result(): number {
    return this.count + (this.hasContent ? 1 : 0)
  }
}

/** Counts found by a {@link JsonRecordCounter}. */
export interface JsonCounts {
  /** Elements of the root array, when the root is a closed array. */
  rootElements?: number
  /** Arrays that are values of the root object's keys, with their element counts. */
  arrays: Array<{ key: string; count: number }>
}

const MAX_KEY_CHARS = 256
const MAX_ARRAYS = 50

/**
 * A depth-tracking JSON scan that counts the elements of the root array, or of each array
 * directly under a root object's keys. Strings are skipped with `indexOf('"')` jumps (escapes
 * handled, also across chunk boundaries). It does not validate JSON; detection does that on a
 * bounded prefix.
 */
export class JsonRecordCounter {
  private depth = 0
  private inString = false
  private esc = false
  private root = 0
  private target = false
  private elemDepth = -1
  private commas = 0
  private sawValue = false
  private capturing = false
  private keyRaw = ''
  private lastKey = ''
  private arrayKey = ''
  private rootCount: number | undefined
  private readonly arrays: Array<{ key: string; count: number }> = []

  /** Feed the next chunk of text. */
  push(s: string): void {
    const len = s.length
    let i = 0
    if (this.inString) {
      i = this.skipString(s, 0)
      if (i < 0) return
    }
    // Hot loop: state in locals, written back before any call and at the end.
    let depth = this.depth
    let target = this.target
    let elemDepth = this.elemDepth
    let commas = this.commas
    let sawValue = this.sawValue
    for (; i < len; i++) {
      const c = s.charCodeAt(i)
      if (c <= 32) continue
      if (c === 34) {
        if (target && depth === elemDepth) sawValue = true
        if (this.root === 123 && depth === 1) {
          this.capturing = true
          this.keyRaw = ''
          this.inString = true
          const j = this.skipString(s, i + 1)
          if (j < 0) {
            i = len
            break
          }
          i = j - 1
          continue
        }
        // Fast path: find the closing quote with indexOf, skipping escaped ones.
        let p = i + 1
        for (;;) {
          const j = s.indexOf('"', p)
          if (j === -1) {
            p = -1
            break
          }
          let k = j - 1
          while (k > i && s.charCodeAt(k) === 92) k--
          if (((j - 1 - k) & 1) === 0) {
            p = j
            break
          }
          p = j + 1
        }
        if (p === -1) {
          this.inString = true
          this.capturing = false
          this.skipString(s, i + 1)
          i = len
          break
        }
        i = p
        continue
      }
      if (c === 44) {
        if (target && depth === elemDepth) commas++
      } else if (c === 123 || c === 91) {
        if (this.root === 0 && depth === 0) this.root = c
        if (target && depth === elemDepth) sawValue = true
        else if (c === 91 && !target) {
          if ((this.root === 91 && depth === 0) || (this.root === 123 && depth === 1)) {
            target = true
            elemDepth = depth + 1
            commas = 0
            sawValue = false
            this.arrayKey = this.lastKey
          }
        }
        depth++
      } else if (c === 125 || c === 93) {
        if (target && depth === elemDepth) {
          const count = sawValue ? commas + 1 : 0
          target = false
          if (this.root === 91) this.rootCount = count
          else if (this.arrays.length < MAX_ARRAYS) this.arrays.push({ key: this.arrayKey, count })
        }
        if (depth > 0) depth--
      } else if (target && depth === elemDepth) {
        sawValue = true
      }
    }
    this.depth = depth
    this.target = target
    this.elemDepth = elemDepth
    this.commas = commas
    this.sawValue = sawValue
  }

  /** Skip string content from `from`; returns the index after the closing quote, or -1. */
  private skipString(s: string, from: number): number {
    let p = from
    if (this.esc) {
      this.esc = false
      p++
    }
    for (;;) {
      const j = s.indexOf('"', p)
      if (j === -1) {
        let k = s.length - 1
        let run = 0
        while (k >= p && s.charCodeAt(k) === 92) {
          run++
          k--
        }
        this.esc = (run & 1) === 1
        this.capture(s, from, s.length, false)
        return -1
      }
      let k = j - 1
      let run = 0
      while (k >= p && s.charCodeAt(k) === 92) {
        run++
        k--
      }
      if ((run & 1) === 1) {
        p = j + 1
        continue
      }
      this.inString = false
      this.capture(s, from, j, true)
      return j + 1
    }
  }

  private capture(s: string, from: number, to: number, done: boolean): void {
    if (!this.capturing) return
    if (this.keyRaw.length < MAX_KEY_CHARS) {
      this.keyRaw += s.slice(from, Math.min(to, from + MAX_KEY_CHARS - this.keyRaw.length))
    }
    if (!done) return
    this.capturing = false
    try {
      this.lastKey = JSON.parse(`"${this.keyRaw}"`) as string
    } catch {
      this.lastKey = this.keyRaw
    }
  }

  /** Counts so far. */
  counts(): JsonCounts {
    const out: JsonCounts = { arrays: [...this.arrays] }
    if (this.rootCount !== undefined) out.rootElements = this.rootCount
    return out
  }
}
