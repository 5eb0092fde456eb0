import { invalidArgument, isMessageArray, type Message } from '@contextkit/core'
import type { AssemblyCheckpoint } from './native-assembly.js'
import { parseMessages } from './validate.js'

/**
 * What the successive requests of one conversation share (an agent run's model calls): give the
 * same memo to each `buildMessages` call and the messages the previous request began with are
 * neither checked nor put together again, so a request costs what is new in it, not the whole
 * history. Made by {@link requestMemo}.
 *
 * The contract: a message the memo has seen is not changed in place while the memo is in use (a
 * changed message is given as a new object, as an agent loop does). Take a fresh memo per run;
 * without one, every message is checked on every call. A formatter with nothing to reuse ignores it.
 */
export interface RequestMemo {
  /** Marks a memo made by {@link requestMemo}. */
  readonly requestMemo: true
}

/** What a native request's assembly depends on besides its messages (compared value by value). */
export type NativeAssemblyKey = readonly unknown[]

/** The memo's state (see {@link RequestMemo}). */
export class RequestMemoState {
  /** The previous request's conversation (after user sections): a list of the memo's own. */
  #conversation: readonly Message[] | undefined
  /** The native formatter's checkpoint and what its assembly depended on. */
  native: { key: NativeAssemblyKey; checkpoint: AssemblyCheckpoint } | undefined

  /**
   * `input` checked as `buildMessages` checks it, looking only at the messages after those the
   * previous request's conversation began with (the same objects: each was checked, or made
   * from checked parts, then). The caller's list may have changed since; its messages may not.
   */
  checked(input: unknown): Message[] {
    if (Array.isArray(input) && this.#conversation !== undefined) {
      const same = samePrefix(input, this.#conversation)
      if (same > 0 && isMessageArray(same === input.length ? [] : input.slice(same))) return input
    }
    return parseMessages(input)
  }

  /**
   * How many leading messages of `conversation` (a list the caller of this method made and
   * keeps as it is) the previous request's conversation had, `undefined` for the memo's first
   * request; remembers `conversation` for the next.
   */
  sameStart(conversation: readonly Message[]): number | undefined {
    const previous = this.#conversation
    this.#conversation = conversation
    return previous === undefined ? undefined : samePrefix(conversation, previous)
  }
}

const states = new WeakMap<RequestMemo, RequestMemoState>()

/** A fresh {@link RequestMemo}: one per conversation whose requests are built one after another. */
export function requestMemo(): RequestMemo {
  const memo: RequestMemo = Object.freeze({ requestMemo: true as const })
  states.set(memo, new RequestMemoState())
  return memo
}

/**
 * The state of `memo` (`undefined` when none is given).
 *
 * @throws ValidationError when `memo` is given but is not one {@link requestMemo} made.
 */
export function memoState(memo: unknown): RequestMemoState | undefined {
  if (memo === undefined) return undefined
  const state = states.get(memo as RequestMemo)
  if (state === undefined) invalidArgument('buildMessages', 'memo', 'a requestMemo()', memo)
  return state
}

/** Leading elements that are the same objects in both lists. */
export function samePrefix(a: readonly unknown[], b: readonly unknown[]): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

/** Whether two assembly keys hold the same values. */
export function sameKey(a: NativeAssemblyKey, b: NativeAssemblyKey): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i])
}
