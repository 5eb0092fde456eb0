import { invalidArgument } from '@contextkit/core'
/** Small string helpers shared by detection and the hint. */

/** Cut `text` to at most `max` characters, ending with `…` when cut; never splits a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text
  if (max <= 0) return ''
  let cut = max - 1
  const last = text.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut--
  return text.slice(0, cut) + '…'
}

/** Replace lone surrogates with U+FFFD (`String.prototype.toWellFormed`, Node 20 and later). */
export function wellFormed(text: string): string {
  return text.toWellFormed()
}

/** Strip a leading U+FEFF. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** Index of the first character that is not JSON/ASCII whitespace at or after `from`, or -1. */
export function skipWs(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return i
  }
  return -1
}

/** `true` for a plain (non-array, non-null) object. */
export function isRecordObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Split text into lines by the package's line rule (for bounded prefixes only). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\n|\r/)
}

/** `1234567` → `1,234,567` (independent of the locale). */
export function formatCount(n: number): string {
  if (typeof n !== 'number') invalidArgument('formatCount', 'n', 'a number', n)
  const s = String(Math.trunc(Math.abs(n)))
  const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return n < 0 ? `-${grouped}` : grouped
}
