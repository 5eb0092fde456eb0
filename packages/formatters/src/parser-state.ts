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
 * Everything pushed and processed, kept for `getAccumulated()` in linear time and memory. Long
 * chunks are kept as they arrived (no copy); runs of short chunks are joined into one segment
 * every {@link SMALL_PER_SEGMENT} chunks, so a long stream of tiny chunks does not keep hundreds
 * of thousands of small strings alive for the garbage collector to trace on every pass. (Joining
 * long chunks as well was measured slower: it re-copies every byte into fresh large strings.)
 */
export class Accumulator {
  #parts: string[] = []
  #small: string[] = []

  add(chunk: string): void {
    if (chunk === '') return
    if (chunk.length >= SMALL_CHUNK) {
      this.#flushSmall()
      this.#parts.push(chunk)
      return
    }
    this.#small.push(chunk)
    if (this.#small.length >= SMALL_PER_SEGMENT) this.#flushSmall()
  }

  text(): string {
    this.#flushSmall()
    const joined = this.#parts.length === 1 ? this.#parts[0]! : this.#parts.join('')
    this.#parts = joined === '' ? [] : [joined]
    return joined
  }

  clear(): void {
    this.#parts = []
    this.#small = []
  }

  #flushSmall(): void {
    if (this.#small.length === 0) return
    this.#parts.push(this.#small.length === 1 ? this.#small[0]! : this.#small.join(''))
    this.#small = []
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
