import { assertString, ValidationError } from '@contextkit/core'

/** Whether a decimal integer literal is represented exactly by a JS number. */
export function isExactInteger(literal: string): boolean {
  const n = Number(literal)
  if (Number.isSafeInteger(n)) return true
  return Number.isFinite(n) && BigInt(literal) === BigInt(n)
}

/**
 * `JSON.parse`, except that integer literals a JS number cannot represent exactly (some of
 * those beyond 2^53) are returned as their decimal string instead of a rounded number. One linear pre-scan; throws
 * a `ValidationError` on invalid JSON (its `cause` is `JSON.parse`'s `SyntaxError`).
 */
export function parseJsonLossless(text: string): unknown {
  assertString(text, 'parseJsonLossless', 'text')
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
  try {
    return JSON.parse(last === 0 ? text : out + text.slice(last))
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause)
    throw new ValidationError(
      `parseJsonLossless: text is not valid JSON: ${message}`,
      [{ path: 'text', message }],
      { cause },
    )
  }
}

/**
 * `JSON.stringify` that writes bigints as plain integers, and integer-valued numbers beyond
 * 2^53 (below 1e21) with their exact digits (`36724856937514328`, not `…330`), so
 * {@link parseJsonLossless} reads them back as the same number. A value with no JSON form
 * (circular, or a top-level function/symbol/undefined) throws core's `ValidationError`.
 */
export function stringifyJson(value: unknown): string {
  if (plainJson(value, 0)) {
    const json = JSON.stringify(value)
    if (json !== undefined) return json
  }
  // placeholders for exact integers; lengthened until no key or string of `value` contains one
  for (let tag = '\u0000bigint'; ; tag += '\u0000') {
    const marks: string[] = []
    let clash = false
    const replacer = (key: string, v: unknown): unknown => {
      if (key.includes(tag) || (typeof v === 'string' && v.includes(tag))) clash = true
      const big =
        typeof v === 'bigint'
          ? v
          : typeof v === 'number' &&
              Number.isInteger(v) &&
              !Number.isSafeInteger(v) &&
              Math.abs(v) < 1e21
            ? BigInt(v)
            : undefined
      if (big === undefined) return v
      marks.push(big.toString())
      return `${tag}${marks.length - 1};`
    }
    let json: string | undefined
    try {
      json = JSON.stringify(value, replacer)
    } catch (cause) {
      throw notJson(cause)
    }
    if (json === undefined) throw notJson(`a top-level ${typeof value} has no JSON form`)
    if (clash) continue
    if (marks.length === 0) return json
    // the tag as JSON writes it (`\\u0000…`), escaped for a RegExp
    const quoted = JSON.stringify(tag)
      .slice(1, -1)
      .replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
    return json.replaceAll(
      new RegExp(`"${quoted}(\\d+);"`, 'g'),
      (_m, k: string) => marks[Number(k)] ?? '0',
    )
  }
}

/**
 * Whether `JSON.stringify` alone writes `value` exactly: no bigint, no integer beyond 2^53, no
 * `toJSON`, nothing deeper than 32 levels (which also stops at cycles). Anything else takes the
 * exact path, which also reports values with no JSON form.
 */
function plainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return !Number.isInteger(value) || Number.isSafeInteger(value) || Math.abs(value) >= 1e21
    case 'object': {
      if (value === null) return true
      if (depth > 32 || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
      if (Array.isArray(value)) {
        for (const v of value) if (!plainJson(v, depth + 1)) return false
        return true
      }
      for (const k in value) {
        if (Object.hasOwn(value, k) && !plainJson((value as Record<string, unknown>)[k], depth + 1))
          return false
      }
      return true
    }
    default:
      return false
  }
}

function notJson(cause: unknown): ValidationError {
  const message = `value cannot be written as JSON (${cause instanceof Error ? cause.message : String(cause)})`
  return new ValidationError(message, [{ path: '(root)', message }], { cause })
}
