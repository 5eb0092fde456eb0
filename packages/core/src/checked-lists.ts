// What the last check of a conversation's messages found sealed (issue 46): an agent checks the
// history it is given on every run, in a new list that begins with the same objects, and each of
// its packages checks it again (the loop's options, the formatter, prefill). A message that was
// sealed (core's `sealMessages`: frozen with its content) when a list holding it passed the check
// still passes: only the messages that were not sealed then, and those after the list's known
// start, are looked at again. Kept per first message (a conversation), weakly.
import { isSealedContent } from './sealed-content.js'

/** A list that passed the check, and which of its messages were not sealed then. */
interface Checked {
  /** A copy of the list as checked (the caller's list may change; these objects may not). */
  readonly messages: readonly unknown[]
  /** Indexes (ascending) of the messages of `messages` that were not sealed when checked. */
  readonly plain: readonly number[]
}

const byFirstMessage = new WeakMap<object, Checked>()

/** What an earlier check tells about a list: how far it is known, what in that part needs a look. */
export interface KnownStart {
  /** How many leading messages are the very objects of a list that passed the check. */
  readonly count: number
  /** Indexes below `count` of the messages among them that were not sealed then. */
  readonly plain: readonly number[]
  /** The check it comes from (`undefined`: none). */
  readonly from: Checked | undefined
}

const NOTHING_KNOWN: KnownStart = { count: 0, plain: [], from: undefined }

/** Whether `m` is a sealed message: frozen, its content sealed (a frozen object cannot change). */
function isSealed(m: unknown): boolean {
  return (
    typeof m === 'object' &&
    m !== null &&
    Object.isFrozen(m) &&
    isSealedContent((m as { content?: unknown }).content)
  )
}

/** What an earlier passed check of a list beginning with the same objects as `list` tells. */
export function knownStart(list: readonly unknown[]): KnownStart {
  const first = list[0]
  if (typeof first !== 'object' || first === null) return NOTHING_KNOWN
  const from = byFirstMessage.get(first)
  if (from === undefined) return NOTHING_KNOWN
  const seen = from.messages
  const n = Math.min(list.length, seen.length)
  let count = 0
  while (count < n && list[count] === seen[count]) count++
  const { plain } = from
  // the common case: the whole earlier list (a run's history), so its index list as it is
  if (count === seen.length || plain.length === 0 || (plain.at(-1) as number) < count)
    return { count, plain, from }
  return { count, plain: plain.filter((i) => i < count), from }
}

/**
 * Remember that `list` passed the check, `known` being what {@link knownStart} told of it (so
 * only the messages after its known start are looked at for being sealed). Nothing is kept for a
 * list the remembered one already covers, or one without a sealed message.
 */
export function rememberChecked(list: readonly unknown[], known: KnownStart): void {
  const first = list[0]
  if (typeof first !== 'object' || first === null) return
  if (known.from !== undefined && known.count === list.length) return
  const plain = [...known.plain]
  for (let i = known.count; i < list.length; i++) if (!isSealed(list[i])) plain.push(i)
  if (plain.length === list.length) return
  byFirstMessage.set(first, { messages: [...list], plain })
}
