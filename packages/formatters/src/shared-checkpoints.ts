// Checkpoints of the native assembly shared from one request memo to the next (issue 46): an
// agent's next run resends the history the last one began with, in a new list with a new memo.
// When those messages are sealed (core's `sealMessages`: frozen, so the same object always holds
// the same values), the next memo's first request resumes from the checkpoint the last one left
// after them instead of putting the whole history together again. Kept per first message (a
// conversation), weakly: a history nobody holds any more takes its checkpoint with it.
import { isSealedMessage, type Message } from '@contextkit/core'
import type { AssemblyCheckpoint } from './native-assembly.js'
import { type NativeAssemblyKey, sameKey, samePrefix } from './request-memo.js'

/** A checkpoint and the conversation it was taken in (its first `count` messages all sealed). */
interface Shared {
  key: NativeAssemblyKey
  conversation: readonly Message[]
  checkpoint: AssemblyCheckpoint
}

const byFirstMessage = new WeakMap<Message, Shared>()

/**
 * The checkpoint a memo's first request may resume from: one left by an earlier request in the
 * same assembly (`key`), whose messages this conversation begins with, the same sealed objects.
 */
export function sharedCheckpoint(
  key: NativeAssemblyKey,
  conversation: readonly Message[],
): AssemblyCheckpoint | undefined {
  const first = conversation[0]
  const shared = first === undefined ? undefined : byFirstMessage.get(first)
  if (shared === undefined || !sameKey(shared.key, key)) return undefined
  // the same sealed objects up to where the checkpoint stops (never past this conversation's end)
  return samePrefix(conversation, shared.conversation) >= shared.checkpoint.count
    ? shared.checkpoint
    : undefined
}

/**
 * Offer `checkpoint` of `conversation` (a list its request owns and no one changes) to later
 * memos: kept when the messages it holds are all sealed (the first `verified` are known to be)
 * and the assembly depends on nothing a caller could change in place (a context prefix given as
 * a list of messages).
 */
export function shareCheckpoint(
  key: NativeAssemblyKey,
  conversation: readonly Message[],
  checkpoint: AssemblyCheckpoint,
  verified: number,
): void {
  const first = conversation[0]
  if (first === undefined || checkpoint.count === 0 || key.some(Array.isArray)) return
  for (let i = verified; i < checkpoint.count; i++) {
    if (!isSealedMessage(conversation[i])) return
  }
  byFirstMessage.set(first, { key, conversation, checkpoint })
}
