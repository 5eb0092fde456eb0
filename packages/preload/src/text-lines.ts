/**
 * Number of lines in `text`, counted like Python's `splitlines`: a final newline does not start
 * a new line, and `''` has 0 lines.
 */
export function countLines(text: string): number {
  if (text.length === 0) return 0
  let n = 0
  let at = text.indexOf('\n')
  while (at !== -1) {
    n++
    at = text.indexOf('\n', at + 1)
  }
  return text.endsWith('\n') ? n : n + 1
}

/** The marker appended to a cut line. */
export function lineCutMarker(removed: number): string {
  return ` [… line cut: ${removed} more characters]`
}

/** Index at most `at` that does not split a UTF-16 surrogate pair. */
export function safeCut(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length))
  const code = text.charCodeAt(at - 1)
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at
}

/**
 * Cut every line longer than `maxLineLength` characters to that length and append
 * {@link lineCutMarker}. Returns the text unchanged (same string) when no line is too long.
 */
export function cutLongLines(text: string, maxLineLength: number): { text: string; cut: number } {
  let start = 0
  let cut = 0
  let parts: string[] | null = null
  let copied = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    if (end - start > maxLineLength) {
      parts ??= []
      const keep = safeCut(text, start + maxLineLength)
      parts.push(text.slice(copied, keep), lineCutMarker(end - keep))
      copied = end
      cut++
    }
    start = end + 1
  }
  if (parts === null) return { text, cut: 0 }
  parts.push(text.slice(copied))
  return { text: parts.join(''), cut }
}
