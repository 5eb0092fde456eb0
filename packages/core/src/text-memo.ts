/**
 * A bounded memo of a pure function of a text: texts of `minChars` or more are remembered by
 * content (at most `maxEntries` texts of at most `maxChars` characters together, the oldest out
 * first), so the same section or file seen again on every model call costs a map lookup instead
 * of a walk. Shorter texts are computed every time (a lookup would cost about as much). The
 * function must depend on the text alone: a remembered value is then always that text's value.
 */
export interface TextMemoLimits {
  minChars: number
  maxEntries: number
  maxChars: number
}

/** A {@link textMemo}: the remembering function, and what it holds (for tests). */
export interface TextMemo<T> {
  (text: string): T
  /** The number of texts remembered and their characters together. */
  size(): { entries: number; chars: number }
}

/** `compute`, remembered per text within `limits` (see {@link TextMemoLimits}). @internal */
export function textMemo<T>(compute: (text: string) => T, limits: TextMemoLimits): TextMemo<T> {
  const memo = new Map<string, T>()
  let chars = 0
  const remembered = (text: string): T => {
    if (text.length < limits.minChars || text.length > limits.maxChars) return compute(text)
    if (memo.has(text)) return memo.get(text) as T
    const value = compute(text)
    memo.set(text, value)
    chars += text.length
    for (const oldest of memo.keys()) {
      if (memo.size <= limits.maxEntries && chars <= limits.maxChars) break
      memo.delete(oldest)
      chars -= oldest.length
    }
    return value
  }
  return Object.assign(remembered, { size: () => ({ entries: memo.size, chars }) })
}
