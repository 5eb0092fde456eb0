import type { LineCount } from '@contextkit/core'

// The line-count rule (`countLines`, `LineCounter`) lives in core, so every package counts lines
// the same way; this package re-exports them from its index for compatibility.
export type { LineCount } from '@contextkit/core'
export { countLines, LineCounter } from '@contextkit/core'

/** The line-ending style of a {@link LineCount}, or `undefined` when there is no terminator. */
export function lineEndingOf(count: LineCount): 'lf' | 'crlf' | 'cr' | 'mixed' | undefined {
  const kinds = (count.lf > 0 ? 1 : 0) + (count.crlf > 0 ? 1 : 0) + (count.cr > 0 ? 1 : 0)
  if (kinds === 0) return undefined
  if (kinds > 1) return 'mixed'
  return count.lf > 0 ? 'lf' : count.crlf > 0 ? 'crlf' : 'cr'
}
