/**
 * The depth-tracking JSON counter: element counts of the root array or of the arrays under a
 * root object's keys, over text in chunks, in constant memory.
 */

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
