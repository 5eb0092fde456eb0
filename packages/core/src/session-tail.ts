import type { SessionEntry } from './session-store.js'

/**
 * Decides, entry by entry from a session's end backwards, when the entries seen hold all a resume
 * needs (what {@link SessionStore.loadTail} returns after the header): the first kept message of
 * the newest compaction entry agent-loop's `applyCompaction` would use (one naming an id whose
 * last message entry is not before it is passed over), and the last assistant reply (whose tool
 * calls, results and later approval entries `runStateOf` reads). Returns a function to call with
 * each entry in reverse order; it returns `true` once the entries given so far are enough, and
 * never before. Invalid lines or rows are not given to it. Pure; one per load.
 */
export function resumeTailBoundary(): (entry: SessionEntry) => boolean {
  /** Ids of the message entries after this point (their last occurrence is later). */
  const seen = new Set<string>()
  /** The first kept id of the newest compaction entry that may still be usable. */
  let kept: string | undefined
  let keptFound = false
  let reply = false
  return (entry) => {
    if (entry.type === 'message') {
      if (entry.id === kept && !seen.has(entry.id)) keptFound = true
      seen.add(entry.id)
      if (entry.message.role === 'assistant') reply = true
    } else if (entry.type === 'compaction' && kept === undefined) {
      // its first kept id already seen after it: `applyCompaction` ignores it, and so does this
      if (!seen.has(entry.firstKeptId)) kept = entry.firstKeptId
    }
    return keptFound && reply
  }
}
