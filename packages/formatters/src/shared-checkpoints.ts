// Checkpoints of the native assembly shared from one request memo to the next (issue 46): an
// agent's next run resends the history the last one began with, in a new list with a new memo,
// and the next memo's first request resumes from the checkpoint the last one left after those
// messages instead of putting the whole history together again. A sealed message (core's
// `sealMessages`: frozen, so the same object always holds the same values) is trusted as it is;
// any other is looked at first: its role, participant and cache breakpoint as they were, and its
// content still rendered as the same object (`nativeMessage` renders content changed in place
// anew). Kept per first message (a conversation), weakly: a history nobody holds any more takes
// its checkpoint with it.
import { isSealedMessage, type Message } from '@contextkit/core'
import type { AssemblyCheckpoint } from './native-assembly.js'
import { nativeMessage } from './native-message.js'
import { type NativeAssemblyKey, sameKey, samePrefix } from './request-memo.js'
import type { FormattedMessage } from './types.js'

/** What an unsealed message of a shared checkpoint was put together from. */
interface Unsealed {
  index: number
  role: Message['role']
  participant: string | undefined
  cacheBreakpoint: boolean | undefined
  rendered: FormattedMessage | undefined
}

/** A checkpoint, the conversation it was taken in, and what its unsealed messages held. */
interface Shared {
  key: NativeAssemblyKey
  conversation: readonly Message[]
  checkpoint: AssemblyCheckpoint
  /** The messages below `checkpoint.count` that were not sealed (ascending). */
  unsealed: readonly Unsealed[]
}

const byFirstMessage = new WeakMap<Message, Shared>()

/** Whether `message` still holds what `was` records (rendered as the same object). */
function holds(message: Message, was: Unsealed): boolean {
  return (
    message.role === was.role &&
    message.participant === was.participant &&
    message.cacheBreakpoint === was.cacheBreakpoint &&
    nativeMessage(message) === was.rendered
  )
}

/**
 * The checkpoint a memo's first request may resume from: one left by an earlier request in the
 * same assembly (`key`), whose messages this conversation begins with, the same objects, each
 * sealed or still holding what it held then. `undefined` when there is none.
 */
export function sharedCheckpoint(
  key: NativeAssemblyKey,
  conversation: readonly Message[],
): AssemblyCheckpoint | undefined {
  const shared = sharedFor(key, conversation)
  if (shared === undefined) return undefined
  for (const was of shared.unsealed) {
    if (!holds(conversation[was.index] as Message, was)) return undefined
  }
  return shared.checkpoint
}

/** The shared entry for `conversation` in `key`, when it begins with the entry's messages. */
function sharedFor(key: NativeAssemblyKey, conversation: readonly Message[]): Shared | undefined {
  const first = conversation[0]
  const shared = first === undefined ? undefined : byFirstMessage.get(first)
  if (shared === undefined || !sameKey(shared.key, key)) return undefined
  // the same objects up to where the checkpoint stops (never past this conversation's end)
  return samePrefix(conversation, shared.conversation) >= shared.checkpoint.count
    ? shared
    : undefined
}

/**
 * Offer `checkpoint` of `conversation` (a list its request owns and no one changes) to later
 * memos, when the assembly depends on nothing a caller could change in place (a context prefix
 * given as a list of messages) and the messages it holds can be looked at again: with
 * `labelled` user messages (`'multiuser'` mode, rendered anew each time), only sealed ones. `from`:
 * the checkpoint this request resumed from (what it records of its messages is kept).
 */
export function shareCheckpoint(
  key: NativeAssemblyKey,
  conversation: readonly Message[],
  checkpoint: AssemblyCheckpoint,
  { from, labelled }: { from: AssemblyCheckpoint | undefined; labelled: boolean },
): void {
  const first = conversation[0]
  if (first === undefined || checkpoint.count === 0 || key.some(Array.isArray)) return
  const earlier = from && sharedFor(key, conversation)
  const start = earlier?.checkpoint === from ? (from?.count ?? 0) : 0
  const unsealed = start > 0 ? [...(earlier?.unsealed ?? [])] : []
  for (let i = start; i < checkpoint.count; i++) {
    const message = conversation[i] as Message
    const sealed: boolean = isSealedMessage(message)
    if (sealed) continue
    if (labelled && message.role === 'user') return
    unsealed.push({
      index: i,
      role: message.role,
      participant: message.participant,
      cacheBreakpoint: message.cacheBreakpoint,
      // rendered by this request a moment ago: the object it holds
      rendered: nativeMessage(message),
    })
  }
  byFirstMessage.set(first, { key, conversation, checkpoint, unsealed })
}
