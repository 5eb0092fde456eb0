// The content arrays of sealed messages (see `sealMessages`): frozen through and through and
// checked when sealed, so whatever reads one (a check, a rendering, a token estimate) may trust
// what it made of it earlier without comparing its blocks again. Its own module, with no imports,
// so the fast input checks can consult it without an import cycle.
import type { ContentBlock } from './message-schemas.js'

const sealed = new WeakSet<readonly ContentBlock[]>()

/** Record `content` as sealed (only `sealMessages` does, after checking and freezing it). */
export function markSealed(content: readonly ContentBlock[]): void {
  sealed.add(content)
}

/**
 * Whether `content` is the content array of a sealed message: checked, and frozen with every
 * block, tool-result part and tool-call input in it, so it holds what it held when sealed.
 */
export function isSealedContent(content: unknown): content is readonly ContentBlock[] {
  // a sealed array is frozen: the cheap look first, so content nobody sealed costs no lookup
  return (
    typeof content === 'object' &&
    content !== null &&
    Object.isFrozen(content) &&
    sealed.has(content as ContentBlock[])
  )
}
