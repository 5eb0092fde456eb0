import { createHash, timingSafeEqual } from 'node:crypto'
import { isLoopback } from './options.js'

/** The header that carries the token on API calls (required on POSTs). */
export const TOKEN_HEADER = 'x-inspector-token'

/**
 * The page's Content-Security-Policy: everything from the inspector itself, no inline script or
 * style, no framing, forms and links only back to it.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** Headers on every answer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
})

function hash(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** Whether `given` is `token`, compared in constant time (over digests of equal length). */
export function sameToken(given: string | null | undefined, token: string): boolean {
  if (typeof given !== 'string' || given.length === 0) return false
  return timingSafeEqual(hash(given), hash(token))
}

/** The cookie the printed URL sets; its name carries the port (cookies are shared by ports). */
export function cookieName(port: number): string {
  return `contextkit_inspector_${port}`
}

/** One cookie's value from a `Cookie` header. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** The token a request carries: header, `Authorization: Bearer`, or the page's cookie. */
export function requestToken(request: Request, port: number): string | undefined {
  const header = request.headers.get(TOKEN_HEADER)
  if (header) return header
  const auth = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1]
  if (auth) return auth
  return cookieValue(request.headers.get('cookie'), cookieName(port))
}

/** Which `Host` headers the inspector answers: its own address, never another name. */
export interface HostRule {
  /** The bound host (or `127.0.0.1`). */
  host: string
  /** The port, once known; `undefined` accepts any port (a handler mounted in an app). */
  port(): number | undefined
}

function splitHost(value: string): { name: string; port: string | undefined } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(value.trim().toLowerCase())
  return { name: m?.[1] ?? '', port: m?.[2] }
}

/**
 * Whether a request's `Host` is the inspector's own: a loopback name when it serves loopback
 * (`127.0.0.1`, `localhost`, `[::1]`), else exactly the host it was given; the port must match
 * when it is known. Refuses DNS-rebinding requests (another name pointing at this address).
 */
export function hostAllowed(value: string | null, rule: HostRule): boolean {
  if (!value) return false
  const { name, port } = splitHost(value)
  const want = rule.port()
  if (want !== undefined && port !== String(want) && !(port === undefined && want === 80)) {
    return false
  }
  if (isLoopback(rule.host)) return isLoopback(name)
  return name === rule.host.toLowerCase() || name === `[${rule.host.toLowerCase()}]`
}

/** Whether a request's `Origin`, when it has one, is the inspector's own (`http://<Host>`). */
export function originAllowed(request: Request, host: string): boolean {
  const origin = request.headers.get('origin')
  if (origin === null) return true
  return origin === `http://${host}` || origin === `https://${host}`
}
