/**
 * Reading a request's target and body the way the API does, without ever throwing: a path the
 * WHATWG URL parser refuses (`//`, `///`), a body that is not UTF-8, JSON nested past what the
 * emulator's validators walk.
 */

/**
 * Deepest JSON nesting a request body may have. The API refuses absurdly deep bodies with a 400
 * `invalid_request_error`; the emulator does the same rather than overflowing its stack.
 */
export const MAX_BODY_DEPTH = 512

/**
 * Path and query of a request target as sent. `new URL('//', base)` throws (a scheme-relative
 * URL with an empty host), so the target is always read as a path on a fixed origin.
 */
export function requestTarget(raw: string | undefined): {
  path: string
  query: Record<string, string>
} {
  const target = raw && raw.length > 0 ? raw : '/'
  try {
    const url = new URL(`http://127.0.0.1${target.startsWith('/') ? '' : '/'}${target}`)
    return { path: url.pathname, query: Object.fromEntries(url.searchParams) }
  } catch {
    const q = target.indexOf('?')
    return { path: q === -1 ? target : target.slice(0, q), query: {} }
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** The body as text, or `null` when it is not valid UTF-8 (the API cannot parse it as JSON). */
export function decodeBody(raw: Buffer): string | null {
  try {
    return strictUtf8.decode(raw)
  } catch {
    return null
  }
}

/** Whether parsed JSON nests deeper than `max` arrays/objects. Iterative: never overflows. */
export function nestsDeeper(value: unknown, max: number = MAX_BODY_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (typeof node !== 'object' || node === null) continue
    if (depth > max) return true
    for (const child of Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}
