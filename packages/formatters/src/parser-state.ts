/**
 * State every stream parser keeps: the accumulated text and the block counter behind
 * `getBlockIndex()`.
 */
import type { StreamEvent } from './types.js'

/** Pieces gathered before they are joined into one string (bounds the number of live strings). */
const PIECES_PER_SEGMENT = 512

/**
 * Everything pushed and processed, kept for `getAccumulated()` in linear time and memory: small
 * chunks are joined into segments every {@link PIECES_PER_SEGMENT} chunks, so a long stream of
 * tiny chunks does not keep hundreds of thousands of small strings alive for the garbage
 * collector to trace on every pass.
 */
export class Accumulator {
  #pieces: string[] = []
  #segments: string[] = []

  add(chunk: string): void {
    if (chunk === '') return
    this.#pieces.push(chunk)
    if (this.#pieces.length >= PIECES_PER_SEGMENT) {
      this.#segments.push(this.#pieces.join(''))
      this.#pieces = []
    }
  }

  text(): string {
    const all = this.#segments.concat(this.#pieces)
    const joined = all.length === 1 ? all[0]! : all.join('')
    this.#segments = joined === '' ? [] : [joined]
    this.#pieces = []
    return joined
  }

  clear(): void {
    this.#pieces = []
    this.#segments = []
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
