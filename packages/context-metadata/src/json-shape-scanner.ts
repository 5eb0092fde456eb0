/**
 * One streaming pass over JSON text that learns its shape near the root: the root's kind and
 * child count, every top-level key of an object (with the kind, size and keys of its value),
 * the keys of the first children (to tell records and maps by their shape), a raw copy of the
 * first child of each container near the root (for samples), and whether a second document
 * follows the first (NDJSON with lines longer than the sniff window). Memory is bounded by the
 * caps below, whatever the input size; chunk boundaries may fall anywhere.
 */

import { FirstChildCaptures } from './json-captures.js'
import {
  type ContainerShape,
  closingQuote,
  endsInOddBackslashes,
  isScalarEnd,
  KIND,
  kindOf,
  MAX_KEYS,
  MAX_MEMBERS,
  newShape,
  runKindOf,
  SHAPE_SAMPLE,
  type ShapeScan,
  type TopMember,
} from './json-shape.js'
import { balancedEnd, elementRun } from './json-skip.js'
import { RunPacer, releaseLastMatch } from './run-pacer.js'

const MAX_KEY_CHARS = 256
const SHALLOW = 3
/** A native skip shorter than this is a poor one; after it, characters are read one by one. */
const SHORT_SKIP = 32
const MIN_SKIP_BACKOFF = 16
const MAX_SKIP_BACKOFF = 4096

interface Frame {
  obj: boolean
  level: number
  shape: ContainerShape
  expectKey: boolean
  /** Decode this object's keys (own keys list / shape comparison). */
  wantKeys: boolean
  /** Parent reference set to compare against (when the parent tracks shapes). */
  parentRef: Set<string> | undefined
  matched: number
  /** Owner record for a top-level member's value. */
  member: TopMember | undefined
  lastMember: TopMember | undefined
  /** Collects this object's keys when it is its parent's first object child. */
  build: Set<string> | undefined
  /** The reference shape of this container's object children (its first object child's keys). */
  childRef: Set<string> | undefined
  captureFirst: boolean
}

/** A streaming JSON shape scan; see the module comment. Feed chunks, then read {@link result}. */
export class JsonShapeScanner {
  private depth = 0
  /** Above this depth only brackets and strings are scanned (a container nobody needs inside). */
  private deepUntil = SHALLOW
  private readonly frames: Frame[] = []
  private rootKind = 0
  private rootValues = 0
  private rootClosed = false
  private readonly root = newShape()
  private readonly members: TopMember[] = []
  private stopped = false
  /** Inside a string: 0 no, 1 skipped, 2 a key being decoded, 3 a value near the root. */
  private inString = 0
  private escaped = false
  private keyRaw = ''
  /** Inside a scalar token (number, true, false, null). */
  private inScalar = false
  private scalarRaw: string | undefined
  private scalarMember: TopMember | undefined
  private readonly captures = new FirstChildCaptures()
  /** Skip deep values and runs of elements in native matches (else character by character). */
  private fastSkip: boolean
  /** Where in the chunk the next native skip may be tried, and the wait after a poor one. */
  private skipRetryAt = 0
  private skipBackoff = MIN_SKIP_BACKOFF
  /** When the next {@link elementRuns} try is due (a chance per comma), and its view. */
  private readonly runs = new RunPacer()

  /** @param options `fastSkip: false` reads deep values character by character (for tests). */
  constructor(options: { fastSkip?: boolean } = {}) {
    this.fastSkip = options.fastSkip ?? true
  }

  /**
   * Where the first root value closed in the chunk last pushed (the index after its last
   * character), or -1 when it did not close in that chunk.
   */
  closedAt = -1

  /** Feed the next chunk of text. */
  push(s: string): void {
    this.closedAt = -1
    if (this.stopped || s.length === 0) return
    this.captures.newChunk()
    this.skipRetryAt = 0
    let i = 0
    if (this.inString !== 0) i = this.continueString(s, 0)
    else if (this.inScalar) i = this.continueScalar(s, 0)
    const len = s.length
    while (i >= 0 && i < len && !this.stopped) {
      if (this.depth > this.deepUntil) {
        i = this.skipDeep(s, i)
        continue
      }
      const c = s.charCodeAt(i)
      if (c <= 32 || c === 58) {
        i++
      } else if (c === 44) {
        const f = this.frames[this.depth - 1]
        i++
        if (f?.obj) f.expectKey = true
        else if (f !== undefined && this.fastSkip) i = this.elementRuns(s, i, f)
      } else if (c === 34) {
        const f = this.frames[this.depth - 1]
        if (f?.obj && f.expectKey) {
          f.expectKey = false
          if (f.wantKeys) {
            this.inString = 2
            this.keyRaw = ''
          } else this.inString = 1
        } else {
          this.valueStart(KIND.string, i)
          this.inString = 3
          this.keyRaw = ''
        }
        i = this.continueString(s, i + 1)
      } else if (c === 123 || c === 91) {
        this.valueStart(kindOf(c), i)
        this.open(c === 123)
        i++
      } else if (c === 125 || c === 93) {
        this.close()
        if (this.depth === 0 && this.closedAt < 0) this.closedAt = i + 1
        this.valueEnd(s, i + 1)
        i++
      } else {
        this.valueStart(kindOf(c), i)
        this.inScalar = true
        i = this.continueScalar(s, i)
      }
    }
    if (i < 0 || i >= len) this.captures.flush(s)
    if (this.fastSkip) releaseLastMatch()
  }

  /**
   * After a comma in an array (`f`) whose next elements would each be skipped whole (counted,
   * their kind noted, nothing read inside): skip them 64 or 8 at a time with one native match
   * each ({@link elementRun}). Returns where to go on. After a miss the next tries wait for 1, 2,
   * 4, … up to 1,024 commas, so arrays the runs never fit cost little.
   */
  private elementRuns(s: string, from: number, f: Frame): number {
    if (!this.runs.due()) return from
    let at = from
    for (;;) {
      let k = at
      while (k < s.length && s.charCodeAt(k) <= 32) k++
      if (k >= s.length) return at
      const kind = runKindOf(s.charCodeAt(k))
      if (kind === undefined) return at
      if (kind === 'object' || kind === 'array') {
        const obj = kind === 'object'
        if (this.depth + 1 <= SHALLOW && this.wants(this.depth, obj) !== undefined) return at
      }
      if (this.captures.openAt(this.depth)) return at
      const run = elementRun(s, at, kind, this.runs.window)
      if (run.count <= 0) {
        if (run.count < 0) this.fastSkip = false
        this.runs.miss()
        return at
      }
      f.shape.count += run.count
      f.shape.kinds |= KIND[kind]
      this.runs.hit(run.count, run.end - at)
      at = run.end
    }
  }

  /** The shape learned so far. */
  result(): ShapeScan {
    return {
      rootKind: this.rootKind,
      rootValues: this.rootValues,
      rootClosed: this.rootClosed,
      root: this.root,
      members: this.members,
    }
  }

  /**
   * Depth > deepUntil: only strings and brackets matter until we come back up. Balanced content
   * is skipped by one native match ({@link balancedEnd}); the loop handles what stops it: a
   * closer, an opener too deep or cut by the chunk end, a string cut by the chunk end.
   */
  private skipDeep(s: string, from: number): number {
    let depth = this.depth
    const len = s.length
    for (let i = from; i < len; i++) {
      if (this.fastSkip && i >= this.skipRetryAt) {
        const j = balancedEnd(s, i)
        if (j === -1) this.fastSkip = false
        else if (j >= len) break
        else {
          // a match that skips little (values nested deeper than it can cross, runs of
          // closers): read the next 16, 32, … 4,096 characters one by one before the next
          if (j - i < SHORT_SKIP) {
            this.skipRetryAt = j + this.skipBackoff
            this.skipBackoff = Math.min(this.skipBackoff * 2, MAX_SKIP_BACKOFF)
          } else this.skipBackoff = MIN_SKIP_BACKOFF
          i = j
        }
      }
      const c = s.charCodeAt(i)
      if (c === 34) {
        const j = closingQuote(s, i + 1, false)
        if (j === -1) {
          this.depth = depth
          this.inString = 1
          this.escaped = endsInOddBackslashes(s, i + 1, false)
          return -1
        }
        i = j
      } else if (c === 123 || c === 91) depth++
      else if (c === 125 || c === 93) {
        depth--
        if (depth === this.deepUntil) {
          this.depth = depth
          this.deepUntil = SHALLOW
          this.valueEnd(s, i + 1)
          return i + 1
        }
      }
    }
    this.depth = depth
    return -1
  }

  private continueString(s: string, from: number): number {
    const j = closingQuote(s, from, this.escaped)
    const keep = this.inString === 2 || (this.inString === 3 && this.scalarMember !== undefined)
    const cap = this.inString === 2 ? MAX_KEY_CHARS : 64
    if (keep && this.keyRaw.length < cap) {
      this.keyRaw += s.slice(
        from,
        Math.min(j === -1 ? s.length : j, from + cap - this.keyRaw.length),
      )
    }
    if (j === -1) {
      this.escaped = endsInOddBackslashes(s, from, this.escaped)
      return -1
    }
    this.escaped = false
    const kind = this.inString
    this.inString = 0
    if (kind === 2) this.key(this.keyRaw)
    else if (kind === 3) {
      if (this.scalarMember) this.scalarMember.scalar = `"${this.keyRaw}"`
      this.scalarMember = undefined
      this.valueEnd(s, j + 1)
    }
    return j + 1
  }

  private continueScalar(s: string, from: number): number {
    let i = from
    while (i < s.length && !isScalarEnd(s.charCodeAt(i))) i++
    if (this.scalarRaw !== undefined && this.scalarRaw.length < 64) {
      this.scalarRaw += s.slice(from, Math.min(i, from + 64 - this.scalarRaw.length))
    }
    if (i === s.length) return -1
    this.inScalar = false
    if (this.scalarMember && this.scalarRaw !== undefined) this.scalarMember.scalar = this.scalarRaw
    this.scalarMember = undefined
    this.scalarRaw = undefined
    this.valueEnd(s, i)
    return i
  }

  private key(raw: string): void {
    let key = raw
    if (raw.includes('\\')) {
      try {
        key = JSON.parse(`"${raw}"`) as string
      } catch {
        key = raw
      }
    }
    const f = this.frames[this.depth - 1]!
    if (f.shape.keys.length < MAX_KEYS) f.shape.keys.push(key)
    if (f.parentRef?.has(key)) f.matched++
    f.build?.add(key)
    if (f.level === 0 && this.rootValues === 1) {
      if (f.shape.count === 0) f.shape.firstKey = key
      f.lastMember = undefined
      if (this.members.length < MAX_MEMBERS) {
        f.lastMember = { key, kind: 0 }
        this.members.push(f.lastMember)
      }
    }
  }

  private valueStart(kind: number, at: number): void {
    if (this.depth === 0) {
      this.rootValues++
      if (this.rootValues > 1) {
        this.stopped = true
        return
      }
      this.rootKind = kind
      return
    }
    const f = this.frames[this.depth - 1]
    if (!f) return
    f.shape.count++
    f.shape.kinds |= kind
    if (f.captureFirst && f.shape.count === 1) this.captures.start(at, this.depth, f.shape)
    if (f.level === 0 && f.obj && f.lastMember) {
      f.lastMember.kind = kind
      if (kind !== KIND.object && kind !== KIND.array) {
        this.scalarMember = f.lastMember
        if (kind !== KIND.string) this.scalarRaw = ''
      }
    }
  }

  /**
   * What a container opened at `level` (its frame index) needs: `undefined` when nothing inside
   * is (no keys to read, nothing to count), so it is skipped like a deep value.
   */
  private wants(
    level: number,
    obj: boolean,
  ): { compare: boolean; member: TopMember | undefined; wantKeys: boolean } | undefined {
    const parent = level > 0 ? this.frames[level - 1] : undefined
    const compare = parent !== undefined && obj && parent.shape.objChildren < SHAPE_SAMPLE
    const rootObject = this.rootKind === KIND.object
    const member = level === 1 && parent?.obj ? parent.lastMember : undefined
    const wantKeys =
      level === 0 ||
      (level === 1 && ((rootObject && member !== undefined) || compare)) ||
      (level === 2 && compare && rootObject)
    if (level >= 1 && !wantKeys && !member) return undefined
    return { compare, member, wantKeys }
  }

  private open(obj: boolean): void {
    this.depth++
    if (this.depth > SHALLOW || this.rootValues > 1) return
    const level = this.depth - 1
    const want = this.wants(level, obj)
    if (!want) {
      this.deepUntil = level
      return
    }
    const { compare, member, wantKeys } = want
    const parent = level > 0 ? this.frames[level - 1] : undefined
    const rootObject = this.rootKind === KIND.object
    const shape = level === 0 ? this.root : newShape()
    const frame: Frame = {
      obj,
      level,
      shape,
      expectKey: obj,
      wantKeys,
      parentRef: compare ? parent?.childRef : undefined,
      matched: 0,
      member,
      lastMember: undefined,
      build: compare && parent?.childRef === undefined ? new Set() : undefined,
      childRef: undefined,
      captureFirst: level === 0 || (level === 1 && rootObject),
    }
    if (member) member.shape = shape
    this.frames[level] = frame
  }

  private close(): void {
    if (this.depth === 0) return
    if (this.depth <= SHALLOW && this.rootValues <= 1) {
      const f = this.frames[this.depth - 1]!
      const parent = this.frames[this.depth - 2]
      if (parent && f.obj && parent.shape.objChildren < SHAPE_SAMPLE && f.wantKeys) {
        const ps = parent.shape
        ps.objChildren++
        if (f.build) {
          parent.childRef = f.build
          ps.ref = [...f.build].slice(0, MAX_KEYS)
          ps.similar++
        } else if (parent.childRef) {
          const own = f.shape.count
          const refSize = parent.childRef.size
          if (f.matched * 2 >= Math.max(own, refSize) || (own === 0 && refSize === 0)) {
            ps.similar++
          }
        }
      }
    }
    this.depth--
    if (this.depth === 0) this.rootClosed = true
  }

  /** A value ended at `end` (exclusive) with the depth now at its parent's. */
  private valueEnd(s: string, end: number): void {
    this.captures.end(s, end, this.depth)
  }
}
