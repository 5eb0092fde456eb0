/**
 * A random UUID (v4) from the Web Crypto API, which Node ≥ 20, browsers, Deno, Bun and edge
 * runtimes all provide as `globalThis.crypto`. Where `randomUUID` is missing (a browser page
 * served over plain http is not a secure context) it is built from `getRandomValues`.
 */
export function randomId(): string {
  const webCrypto = globalThis.crypto
  if (typeof webCrypto.randomUUID === 'function') return webCrypto.randomUUID()
  const bytes = webCrypto.getRandomValues(new Uint8Array(16))
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
