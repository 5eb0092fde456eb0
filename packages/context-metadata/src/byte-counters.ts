/**
 * Counters over UTF-8 bytes, for {@link analyzeFile}: the same characters, lines and NDJSON
 * records the text counters find in the decoded text, without decoding it. Chunks handed to
 * them must end on a sequence boundary (see {@link completeEnd}), so the decoder would be in
 * its initial state there and a byte run never depends on the bytes of another chunk.
 */
import { isUtf8 } from 'node:buffer'
import type { LineCount } from '@contextkit/core'
import { BYTE_COUNT_WASM } from './byte-count-wasm.js'
import { ByteCsvCounter, type CsvCountSpec } from './byte-csv-counter.js'
import { RecordLineTally } from './record-counters.js'

/** Native byte counts (WebAssembly SIMD) over one shared memory. */
interface WasmCounts {
  utf16(p: number, n: number): number
  breaks(p: number, n: number, out: number): number
  events(p: number, n: number, out: number, a: number, b: number): number
  csv(p: number, n: number, state: number): void
}

/** The part of the WebAssembly global used here (the package's `lib` does not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer }
  Instance: new (module: object, imports: object) => { exports: unknown }
}

const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly
let compiled: object | null | undefined

/** The compiled module, or `null` where WebAssembly (with SIMD) is not available. */
function wasmModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasmApi ? new wasmApi.Module(Buffer.from(BYTE_COUNT_WASM, 'base64')) : null
    } catch {
      compiled = null
    }
  }
  return compiled ?? null
}

/**
 * A buffer of at least `size` bytes for reading into, with the counters that read it: the
 * memory of a WebAssembly instance where available (the buffer, then room for the index of
 * every byte as a line break), else plain memory and JavaScript loops.
 */
export function byteCountBuffer(size: number): { buffer: Buffer; counts: ByteCounts } {
  const at = Math.ceil((size + 16) / 16) * 16
  const mod = wasmModule()
  if (mod && wasmApi) {
    try {
      // the buffer, the list of breaks (an index per byte at most), a CSV counter's state
      const stateAt = at + 4 * size
      const memory = new wasmApi.Memory({ initial: Math.ceil((stateAt + 64) / 65536) })
      const exports = new wasmApi.Instance(mod, { env: { memory } }).exports as WasmCounts
      const buffer = Buffer.from(memory.buffer, 0, size)
      const breaks = new Int32Array(memory.buffer, at, size)
      const state = new Int32Array(memory.buffer, stateAt, 16)
      return { buffer, counts: new ByteCounts(buffer, { exports, state, stateAt }, breaks, at) }
    } catch {
      // out of memory for a second instance, a disabled engine: the loops are always right
    }
  }
  const buffer = Buffer.allocUnsafe(size)
  return { buffer, counts: new ByteCounts(buffer, undefined, new Int32Array(size), 0) }
}

/** A WebAssembly instance of the byte counters, and where in its memory a CSV state goes. */
export interface NativeCounts {
  exports: WasmCounts
  state: Int32Array
  stateAt: number
}

/**
 * UTF-16 length of valid UTF-8: bytes that do not continue a sequence, plus one per four-byte
 * lead (a surrogate pair). The JavaScript twin of the WebAssembly `utf16`.
 */
export function utf16LengthOfValid(bytes: Uint8Array, from: number, to: number): number {
  let c = to - from
  for (let i = from; i < to; i++) {
    const b = bytes[i] as number
    if ((b & 0xc0) === 0x80) c--
    else if (b >= 0xf0) c++
  }
  return c
}

/**
 * Where the last complete sequence of `bytes[0, end)` ends: `end`, or the start of a
 * multi-byte sequence cut short by the end (its lead is among the last three bytes and it
 * needs more bytes than are left). A UTF-8 decoder is in its initial state before any byte
 * that is not a continuation byte, so decoding up to the returned index and from it on gives
 * the text of decoding the whole.
 */
export function completeEnd(bytes: Uint8Array, end: number): number {
  for (let i = end - 1; i >= 0 && i >= end - 3; i--) {
    const b = bytes[i] as number
    if ((b & 0xc0) === 0x80) continue
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1
    return end - i < need ? i : end
  }
  return end
}

/** Byte counts over one buffer, natively where the engine allows. */
export class ByteCounts {
  /**
   * @param buffer - the bytes (the WebAssembly memory's start when `wasm` is given).
   * @param native - the native counters, or `undefined` for the JavaScript loops.
   * @param breakList - where {@link ByteCounts.breaks} writes (at byte `breakAt` of that memory).
   */
  constructor(
    private readonly buffer: Buffer,
    private readonly native: NativeCounts | undefined,
    readonly breakList: Int32Array,
    private readonly breakAt: number,
  ) {
    this.wasm = native?.exports
  }

  private readonly wasm: WasmCounts | undefined

  /**
   * Runs the native CSV counter over `buffer[from, to)` (a non-empty run) on `state` (a
   * `ByteCsvCounter`'s, carried on and written back); `false` when there is no native one.
   */
  csv(from: number, to: number, state: Int32Array): boolean {
    const native = this.native
    if (!native) return false
    native.state.set(state)
    native.exports.csv(from, to - from, native.stateAt)
    state.set(native.state.subarray(0, state.length))
    return true
  }

  /**
   * Finds every `\n` and `\r` of `buffer[from, to)`: their indexes go, in order, to
   * `breakList`; returns how many.
   */
  breaks(from: number, to: number): number {
    if (this.wasm) return this.wasm.breaks(from, to - from, this.breakAt)
    const b = this.buffer
    const out = this.breakList
    let k = 0
    let n = b.indexOf(10, from)
    let r = b.indexOf(13, from)
    if (n >= to) n = -1
    if (r >= to) r = -1
    while (n !== -1 || r !== -1) {
      if (r === -1 || (n !== -1 && n < r)) {
        out[k++] = n
        n = b.indexOf(10, n + 1)
        if (n >= to) n = -1
      } else {
        out[k++] = r
        r = b.indexOf(13, r + 1)
        if (r >= to) r = -1
      }
    }
    return k
  }

  /**
   * {@link ByteCounts.breaks} that also lists every byte equal to `a` or `b` (ASCII: a CSV's
   * quote and delimiter).
   */
  events(from: number, to: number, a: number, b: number): number {
    if (this.wasm) return this.wasm.events(from, to - from, this.breakAt, a, b)
    const bytes = this.buffer
    const out = this.breakList
    let k = 0
    for (let i = from; i < to; i++) {
      const c = bytes[i] as number
      if (c === 10 || c === 13 || c === a || c === b) out[k++] = i
    }
    return k
  }

  /**
   * UTF-16 length of decoding `buffer[from, to)` (a run ending on a sequence boundary):
   * counted on the bytes when they are valid UTF-8, else decoded (U+FFFD replacement is the
   * decoder's own, so the count is exact).
   */
  utf16(from: number, to: number): number {
    const view = this.buffer.subarray(from, to)
    if (!isUtf8(view)) return view.toString('utf8').length
    return this.wasm ? this.wasm.utf16(from, to - from) : utf16LengthOfValid(view, 0, view.length)
  }
}

/**
 * Line count of the decoded text (core's `LineCounter` rule: `\n`, `\r\n` and `\r` end lines;
 * a last line without a terminator counts; a leading BOM alone is no line), over byte runs.
 * `\n` and `\r` are ASCII, never part of a multi-byte sequence nor swallowed by U+FFFD.
 */
export class ByteLineCounter {
  private lf = 0
  private crlf = 0
  private cr = 0
  private pendingCR = false
  private tailOpen = false
  private total = 0
  private bomOnly = false

  /** Feed `bytes[from, to)`, whose line breaks are `breaks[0, k)` (see `ByteCounts.breaks`). */
  push(bytes: Buffer, from: number, to: number, breaks: Int32Array, k: number): void {
    if (to <= from) return
    if (this.total === 0) this.bomOnly = startsWithBom(bytes, from, to)
    this.total += to - from
    let i = 0
    if (this.pendingCR) {
      this.pendingCR = false
      if (bytes[from] === 10) {
        this.crlf++
        i = 1
      } else this.cr++
    }
    let lf = 0
    let crlf = 0
    let cr = 0
    for (; i < k; i++) {
      const p = breaks[i] as number
      if (bytes[p] === 10) lf++
      else if (p === to - 1) this.pendingCR = true
      else if (bytes[p + 1] === 10) {
        crlf++
        i++
      } else cr++
    }
    this.lf += lf
    this.crlf += crlf
    this.cr += cr
    const last = bytes[to - 1]
    this.tailOpen = last !== 10 && last !== 13
  }

  /** Counts so far, as if the text ended here. */
  result(): LineCount {
    const cr = this.cr + (this.pendingCR ? 1 : 0)
    const terminators = this.lf + this.crlf + cr
    const open = this.tailOpen && !(this.bomOnly && this.total === 3)
    return { lines: terminators + (open ? 1 : 0), lf: this.lf, crlf: this.crlf, cr }
  }
}

function startsWithBom(b: Uint8Array, from: number, to: number): boolean {
  return to - from >= 3 && b[from] === 0xef && b[from + 1] === 0xbb && b[from + 2] === 0xbf
}

/** `true` when a BOM (EF BB BF) ends at `k` and starts at or after `from`. */
function bomEndsAt(b: Uint8Array, from: number, k: number): boolean {
  return k - 2 >= from && b[k] === 0xbf && b[k - 1] === 0xbb && b[k - 2] === 0xef
}

/**
 * `NdjsonRecordCounter` over byte runs: a non-blank line is a record when its first
 * non-blank character is `{` or `[` and its last is `}` or `]`. Blank means bytes ≤ 0x20 and
 * BOMs (EF BB BF, always U+FEFF); any other byte belongs to a character that is not blank
 * (U+FFFD for invalid bytes included), and only ASCII brackets decide.
 */
export class ByteNdjsonCounter {
  private readonly tally = new RecordLineTally()

  /** Feed `bytes[from, to)`, whose line breaks are `breaks[0, k)` (see `ByteCounts.breaks`). */
  push(b: Buffer, from: number, to: number, breaks: Int32Array, k: number): void {
    let pos = from
    let records = 0
    for (let i = 0; i < k; i++) {
      const br = breaks[i] as number
      // the common line, `{…}` or `[…]` from its first byte to its last: a record at a glance
      if (this.tally.first === 0 && pos < br) {
        const c0 = b[pos]
        const c1 = b[br - 1]
        if ((c0 === 123 || c0 === 91) && (c1 === 125 || c1 === 93)) {
          records++
          pos = br + 1
          continue
        }
      }
      if (pos < br) this.scanLine(b, pos, br)
      if (this.tally.first !== 0) this.tally.endLine()
      pos = br + 1
    }
    this.tally.records += records
    if (pos < to) this.scanLine(b, pos, to)
  }

  private scanLine(b: Buffer, pos: number, end: number): void {
    let i = pos
    if (this.tally.first === 0) {
      for (;;) {
        if (i >= end) return
        const c = b[i] as number
        if (c > 32 && !(c === 0xef && bomEndsAt(b, pos, i + 2) && i + 2 < end)) break
        i += c === 0xef ? 3 : 1
      }
      this.tally.first = b[i] as number
    }
    let k = end - 1
    for (;;) {
      if (k < i) return
      const c = b[k] as number
      if (c > 32 && !(c === 0xbf && bomEndsAt(b, i, k))) break
      k -= c === 0xbf ? 3 : 1
    }
    this.tally.last = b[k] as number
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

/**
 * Characters, lines and NDJSON records counted on the UTF-8 bytes of the whole input, for
 * formats whose counters need no text (see `Counting.byteTally`): NDJSON, CSV/TSV, text. Each run handed to
 * `push` must end on a sequence boundary (`completeEnd`), except the input's last.
 */
export class ByteTally {
  chars = 0
  readonly lines = new ByteLineCounter()
  readonly ndjson: ByteNdjsonCounter | undefined
  readonly csv: ByteCsvCounter | undefined

  /**
   * @param ndjson - count NDJSON records.
   * @param csv - count CSV records (the delimiter must pass `countsOnBytes`).
   */
  constructor(ndjson: boolean, csv?: CsvCountSpec) {
    this.ndjson = ndjson ? new ByteNdjsonCounter() : undefined
    this.csv = csv ? new ByteCsvCounter(csv) : undefined
  }

  /** Feed `bytes[from, to)`, counted with `counts` (which reads the same buffer). */
  push(bytes: Buffer, from: number, to: number, counts: ByteCounts): void {
    if (to <= from) return
    this.chars += counts.utf16(from, to)
    const k = counts.breaks(from, to)
    this.lines.push(bytes, from, to, counts.breakList, k)
    this.ndjson?.push(bytes, from, to, counts.breakList, k)
    // CSV records in a second pass (natively, or over a list of quotes, delimiters and breaks)
    const csv = this.csv
    if (csv && !counts.csv(from, to, csv.state)) {
      csv.push(bytes, from, to, counts.breakList, counts.events(from, to, 34, csv.delim))
    }
  }
}
