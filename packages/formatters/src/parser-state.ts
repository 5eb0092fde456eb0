/**
 * State every stream parser keeps: the accumulated text and the block counter behind
 * `getBlockIndex()`.
 */
import type { StreamEvent } from './types.js'

/** Chunks shorter than this are copied together into segments; longer ones are kept as they are. */
const SMALL_CHUNK = 1024
/** Small chunks gathered before they are joined into one segment. */
const SMALL_PER_SEGMENT = 512
/**
 * Length from which a string is kept as it is: past V8's largest regular object (128 KiB) a
 * string is allocated in large-object space, which the young-generation collector never copies.
 * Shorter segments are gathered until together they are this long, then joined.
 */
const LONG_SEGMENT = 1 << 17

/**
 * Everything pushed and processed, kept for `getAccumulated()` in linear time and memory. Long
 * chunks are kept as they arrived (no copy). Runs of short chunks are joined in two steps: every
 * {@link SMALL_PER_SEGMENT} chunks into a segment, and segments into one string once they
 * hold {@link LONG_SEGMENT} characters. So a long stream of tiny chunks neither keeps hundreds
 * of thousands of small strings alive for the collector to trace, nor has every byte of its
 * text copied twice by the young-generation collector (once when a segment survives a
 * collection, once when it is promoted). (Joining long chunks as well was measured slower: it
 * re-copies every byte into fresh large strings.)
 */
export class Accumulator {
  /** Long strings: long chunks as they came, joined runs of short ones. */
  #parts: string[] = []
  /** Joined runs of short chunks not yet joined into one long string, and their length. */
  #segments: string[] = []
  #segmentChars = 0
  /** Short chunks not yet joined (the first `#smallCount` entries; the array is reused). */
  readonly #small: Array<string | undefined> = []
  #smallCount = 0

  add(chunk: string): void {
    if (chunk === '') return
    if (chunk.length >= SMALL_CHUNK) {
      this.#flushSmall()
      this.#flushSegments()
      this.#parts.push(chunk)
      return
    }
    this.#small[this.#smallCount++] = chunk
    if (this.#smallCount >= SMALL_PER_SEGMENT) this.#flushSmall()
  }

  text(): string {
    this.#flushSmall()
    this.#flushSegments()
    const joined = this.#parts.length === 1 ? this.#parts[0]! : this.#parts.join('')
    this.#parts = joined === '' ? [] : [joined]
    return joined
  }

  clear(): void {
    this.#parts = []
    this.#segments = []
    this.#segmentChars = 0
    this.#small.length = 0
    this.#smallCount = 0
  }

  #flushSmall(): void {
    const n = this.#smallCount
    if (n === 0) return
    const small = this.#small
    const segment = n === 1 ? small[0]! : (n === small.length ? small : small.slice(0, n)).join('')
    // the chunks are let go (the array is kept for the next run)
    for (let i = 0; i < n; i++) small[i] = undefined
    this.#smallCount = 0
    if (segment.length >= LONG_SEGMENT) {
      // long enough already (chunks of a few hundred characters): joining it again would only copy
      this.#flushSegments()
      this.#parts.push(segment)
      return
    }
    this.#segments.push(segment)
    this.#segmentChars += segment.length
    if (this.#segmentChars >= LONG_SEGMENT) this.#flushSegments()
  }

  #flushSegments(): void {
    if (this.#segments.length === 0) return
    this.#parts.push(this.#segments.length === 1 ? this.#segments[0]! : this.#segments.join(''))
    this.#segments = []
    this.#segmentChars = 0
  }
}

/**
 * Counts blocks as events open them: every thinking, tool-call and tool-result block, and every
 * run of text after another block (or at the start).
 */
export class BlockCounter {
  #started = 0
  #textOpen = false

  /** A thinking/tool block opens. */
  open(): void {
    this.#started++
    this.#textOpen = false
  }

  /** Text is emitted: the first text after another block opens a text block. */
  text(): void {
    if (this.#textOpen) return
    this.#started++
    this.#textOpen = true
  }

  /** The index of the block in progress; `inBlock` when a thinking/tool block is open. */
  index(inBlock: boolean): number {
    return inBlock || this.#textOpen ? this.#started - 1 : this.#started
  }

  reset(): void {
    this.#started = 0
    this.#textOpen = false
  }
}

/** Append a delta, merging with the previous event of the same type. */
export function pushDelta(
  out: StreamEvent[],
  type: 'text-delta' | 'thinking-delta',
  text: string,
): void {
  const last = out[out.length - 1]
  if (last && last.type === type) last.text += text
  else out.push({ type, text })
}

/**
 * The events of one `processChunk`/`flush` call, handed out as an array of exactly their number.
 * Most chunks yield one event or none; an array grown by `push` from empty reserves room for
 * 17, which at one call per 16-char chunk made the returned arrays the largest allocation of a
 * stream. The buffer's own array is reused from call to call and cleared after each.
 */
export class EventBuffer {
  readonly #items: Array<StreamEvent | undefined> = []
  #count = 0

  /** Append one event. */
  push(event: StreamEvent): void {
    this.#items[this.#count++] = event
  }

  /** Append a delta, merging with the previous event when it is a delta of the same type. */
  delta(type: 'text-delta' | 'thinking-delta', text: string): void {
    const last = this.#count > 0 ? this.#items[this.#count - 1] : undefined
    if (last !== undefined && last.type === type) last.text += text
    else this.push({ type, text })
  }

  /** The events so far, in order, as a new array; the buffer is empty afterwards. */
  take(): StreamEvent[] {
    if (this.#count === 0) return []
    const out = this.#items.slice(0, this.#count) as StreamEvent[]
    this.clear()
    return out
  }

  /** Drop the events (a call that threw half-way leaves none behind for the next). */
  clear(): void {
    // the references go too, so no finished event is kept alive by the parser
    for (let i = 0; i < this.#count; i++) this.#items[i] = undefined
    this.#count = 0
  }
}
