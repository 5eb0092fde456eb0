// The native request's messages as they are put together one by one: same-role neighbours merged,
// shared (frozen) renderings changed through copies, cache markers requested by position so that
// the state after some messages can be kept (a checkpoint) and a later request that starts with
// the same messages resumes from it instead of putting them together again.
import { type CacheMarks, lastMarkableIndex } from './cache-markers.js'
import { frozenCopy, writableMessage } from './native-message.js'
import type { FormattedMessage } from './types.js'

/** The speaker of each role so far (`'simple'` mode allows one each). */
export interface Parties {
  user?: string
  assistant?: string
}

/** Where a requested cache marker goes: the index of its message in the request, of its block in it. */
type MarkAt = readonly [message: number, block: number]

/**
 * The state of an {@link Assembly} after its first `count` conversation messages (and the context
 * prefix before them): frozen messages only, so any number of later requests may share it.
 */
export interface AssemblyCheckpoint {
  /** How many conversation messages (after the context prefix) it holds. */
  readonly count: number
  readonly out: readonly FormattedMessage[]
  /** The cache markers requested so far, in request order. */
  readonly marks: readonly MarkAt[]
  readonly parties: Readonly<Parties>
}

/**
 * One request's messages being put together. `out` holds shared renderings as they are until one
 * must change (a merge, a cache marker): then that message is replaced by a copy the request owns.
 */
export class Assembly {
  /** The request's messages so far. */
  readonly out: FormattedMessage[]
  /** The speaker of each role so far. */
  readonly parties: Parties
  readonly #marks: CacheMarks
  readonly #requested: MarkAt[] = []
  /** Indexes of `out` that hold messages this request owns (copies, renderings of its own). */
  readonly #owned = new Set<number>()

  /** An empty assembly, or one resumed from `from`, requesting its cache markers on `marks`. */
  constructor(marks: CacheMarks, from?: AssemblyCheckpoint) {
    this.#marks = marks
    this.out = from ? [...from.out] : []
    this.parties = from ? { ...from.parties } : {}
    for (const [message, block] of from?.marks ?? []) this.#mark(message, block)
  }

  /**
   * Add one rendered message (`undefined`: nothing left to send), merged into the message before
   * it when both have the same role (a blank line between their texts); `breakpoint`: request a
   * cache marker after it (on the message before it when it sends nothing).
   */
  append(message: FormattedMessage | undefined, breakpoint: boolean): void {
    const last = this.out.length - 1
    if (message === undefined) {
      if (breakpoint && last >= 0) this.#mark(last, lastMarkableIndex(this.#at(last).content))
      return
    }
    if (last >= 0 && this.#at(last).role === message.role) {
      const into = this.#writable(last)
      const from = into.content.length
      const blocks = message.content.map((b) => (Object.isFrozen(b) ? { ...b } : b))
      const head = blocks[0]
      const tail = into.content[from - 1]
      if (head?.type === 'text' && tail?.type === 'text') head.text = `\n\n${head.text}`
      into.content.push(...blocks)
      if (breakpoint) this.#mark(last, lastMarkableIndex(into.content, from))
      return
    }
    // a rendering made for this request alone (not frozen) is its own: a checkpoint copies it
    if (!Object.isFrozen(message)) this.#owned.add(last + 1)
    this.out.push(message)
    if (breakpoint) this.#mark(last + 1, lastMarkableIndex(message.content))
  }

  /** `out[index]`, made this request's own (see `writableMessage`). */
  writable(index: number): FormattedMessage {
    return this.#writable(index)
  }

  /** This state as a checkpoint holding `count` conversation messages (owned messages as frozen copies). */
  checkpoint(count: number): AssemblyCheckpoint {
    const out = [...this.out]
    for (const i of this.#owned) out[i] = frozenCopy(out[i] as FormattedMessage)
    return Object.freeze({
      count,
      out: Object.freeze(out),
      marks: Object.freeze([...this.#requested]),
      parties: Object.freeze({ ...this.parties }),
    })
  }

  #at(index: number): FormattedMessage {
    return this.out[index] as FormattedMessage
  }

  #writable(index: number): FormattedMessage {
    this.#owned.add(index)
    return writableMessage(this.out, index)
  }

  #mark(message: number, block: number): void {
    if (block < 0) return
    this.#requested.push([message, block])
    this.#marks.add(this.#writable(message).content[block])
  }
}
