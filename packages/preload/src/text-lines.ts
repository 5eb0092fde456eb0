import { assertFiniteNumber, assertString, invalidArgument } from '@contextkit/core'

/**
 * Lines are core's: `\r\n`, `\n` and a lone `\r` each end one, and a final terminator does not
 * start a new line (`countLines`, re-exported from core so every package counts the same way).
 */
export { countLines } from '@contextkit/core'

/** The marker appended to a cut line. */
export function lineCutMarker(removed: number): string {
  if (typeof removed !== 'number') invalidArgument('lineCutMarker', 'removed', 'a number', removed)
  return ` [… line cut: ${removed} more characters]`
}

/** Index at most `at` that does not split a UTF-16 surrogate pair. */
export function safeCut(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length))
  const code = text.charCodeAt(at - 1)
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at
}

/** Index of the next `\n` or `\r` at or after `from` (`text.length` when there is none). */
function nextBreak(text: string, from: number, cache: { lf: number; cr: number }): number {
  if (cache.lf !== -1 && cache.lf < from) cache.lf = text.indexOf('\n', from)
  if (cache.cr !== -1 && cache.cr < from) cache.cr = text.indexOf('\r', from)
  const lf = cache.lf === -1 ? text.length : cache.lf
  const cr = cache.cr === -1 ? text.length : cache.cr
  return Math.min(lf, cr)
}

/**
 * Cut every line longer than `maxLineLength` characters to that length and append
 * {@link lineCutMarker}. Lines end where core's `countLines` ends them (`\r\n`, `\n`, lone
 * `\r`), so a file with classic-Mac line ends is not one long line. Returns the text unchanged
 * (same string) when no line is too long, with `cut` (lines cut) and `removed` (characters
 * removed, markers not counted).
 */
export function cutLongLines(
  text: string,
  maxLineLength: number,
): { text: string; cut: number; removed: number } {
  assertString(text, 'cutLongLines', 'text')
  assertFiniteNumber(maxLineLength, 'cutLongLines', 'maxLineLength')
  let start = 0
  let cut = 0
  let removed = 0
  let parts: string[] | null = null
  let copied = 0
  // positions of the next \n and \r, each searched again only once passed (linear overall)
  const breaks = { lf: text.indexOf('\n'), cr: text.indexOf('\r') }
  while (start <= text.length) {
    const end = nextBreak(text, start, breaks)
    if (end - start > maxLineLength) {
      parts ??= []
      const keep = safeCut(text, start + maxLineLength)
      parts.push(text.slice(copied, keep), lineCutMarker(end - keep))
      removed += end - keep
      copied = end
      cut++
    }
    start = end + 1
  }
  if (parts === null) return { text, cut: 0, removed: 0 }
  parts.push(text.slice(copied))
  return { text: parts.join(''), cut, removed }
}
