/** Whether a decimal integer literal is represented exactly by a JS number. */
export function isExactInteger(literal: string): boolean {
  const n = Number(literal)
  if (Number.isSafeInteger(n)) return true
  return Number.isFinite(n) && BigInt(literal) === BigInt(n)
}

/**
 * `JSON.parse`, except that integer literals a JS number cannot represent exactly (some of
 * those beyond 2^53) are returned as their decimal string instead of a rounded number. One linear pre-scan; throws
 * `SyntaxError` on invalid JSON like `JSON.parse`.
 */
export function parseJsonLossless(text: string): unknown {
  let out = ''
  let last = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // skip a string literal
      i++
      while (i < n) {
        const d = text.charCodeAt(i)
        if (d === 92) i += 2
        else if (d === 34) break
        else i++
      }
      i++
      continue
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i
      i++
      while (i < n) {
        const d = text.charCodeAt(i)
        if ((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) i++
        else break
      }
      const literal = text.slice(start, i)
      if (/^-?(0|[1-9]\d*)$/.test(literal) && !isExactInteger(literal)) {
        out += text.slice(last, start) + JSON.stringify(literal)
        last = i
      }
      continue
    }
    i++
  }
  return JSON.parse(last === 0 ? text : out + text.slice(last))
}

/**
 * `JSON.stringify` that writes bigints as plain integers, and integer-valued numbers beyond
 * 2^53 (below 1e21) with their exact digits (`36724856937514328`, not `…330`), so
 * {@link parseJsonLossless} reads them back as the same number.
 */
export function stringifyJson(value: unknown): string {
  const marks: string[] = []
  const json = JSON.stringify(value, (_key, v: unknown) => {
    const big =
      typeof v === 'bigint'
        ? v
        : typeof v === 'number' &&
            Number.isInteger(v) &&
            !Number.isSafeInteger(v) &&
            Math.abs(v) < 1e21
          ? BigInt(v)
          : undefined
    if (big !== undefined) {
      marks.push(big.toString())
      return `\u0000bigint${marks.length - 1}\u0000`
    }
    return v
  })
  if (marks.length === 0) return json
  return json.replace(/"\\u0000bigint(\d+)\\u0000"/g, (_m, k: string) => marks[Number(k)] ?? '0')
}
