import {
  assertFiniteNumber,
  assertObject,
  assertString,
  ContextkitError,
  ValidationError,
} from './errors.js'
import type { SessionEntry } from './session-store.js'

/**
 * The largest session entry a store of ours writes: 256 MiB of UTF-8 JSON (one JSONL line, one
 * Postgres row). A larger entry is refused at `append` with {@link SessionTooLargeError}, so
 * every entry written can be read back: a reader holds one entry's text at a time, as one
 * JavaScript string (V8 caps a string at 2^29 − 24 UTF-16 units, about 512 Mi), and this bound
 * is also the most a streaming load holds at once besides what it returns. A JSONL line longer
 * than this (written by something else) is skipped on load with a warning.
 */
export const SESSION_ENTRY_MAX_BYTES = 256 * 1024 * 1024

/**
 * An `append` was refused before anything was written: one entry's JSON is larger than
 * {@link SESSION_ENTRY_MAX_BYTES} (`details.what: 'entry'`, with its `index`), or a JSONL batch
 * is larger than the largest buffer Node can write at once (`details.what: 'batch'`; 4 GiB on
 * 64-bit Node). `details.bytes` is the size found (a lower bound when JSON could not even be
 * made), `details.limit` the limit. A `ValidationError`: the input is what is wrong.
 */
export class SessionTooLargeError extends ValidationError {
  /** The `code` of every error of this class: `session_too_large`. */
  static override readonly code: string = 'session_too_large'
}

const CHUNK_UNITS = 64 * 1024
let scratch: Uint8Array | undefined
let encoder: InstanceType<typeof TextEncoder> | undefined

/**
 * Bytes of `text` as UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD), counted by
 * encoding 64 Ki units at a time into one scratch buffer (never the whole text at once).
 */
export function utf8Length(text: string): number {
  assertString(text, 'utf8Length', 'text')
  encoder ??= new TextEncoder()
  scratch ??= new Uint8Array(CHUNK_UNITS * 3 + 3)
  let bytes = 0
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + CHUNK_UNITS)
    // never cut a surrogate pair in two (each half would count as 3 bytes)
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++
    bytes += encoder.encodeInto(text.slice(at, end), scratch).written
    at = end
  }
  return bytes
}

/**
 * The JSON text of one entry of a batch, for a store to write: `JSON.stringify(entry)`, checked
 * against {@link SESSION_ENTRY_MAX_BYTES} (`limit`, lower for tests). `fn` names the caller in
 * messages.
 *
 * @throws SessionTooLargeError when the text is larger than the limit (or too large for a string).
 * @throws ValidationError when JSON cannot hold the entry (a `BigInt`, a cycle).
 */
export function sessionEntryText(
  entry: SessionEntry,
  index: number,
  fn: string,
  limit: number = SESSION_ENTRY_MAX_BYTES,
): string {
  assertString(fn, 'sessionEntryText', 'fn')
  assertFiniteNumber(index, 'sessionEntryText', 'index')
  assertFiniteNumber(limit, 'sessionEntryText', 'limit')
  assertObject(entry, fn, `entry ${index}`)
  let text: string
  try {
    text = JSON.stringify(entry)
  } catch (error) {
    // V8 throws a RangeError ("Invalid string length") when the text passes its string limit
    if (error instanceof RangeError && !ContextkitError.isInstance(error)) {
      throw tooLarge(fn, index, 2 ** 29 - 24, limit, error)
    }
    const message = `not serializable as JSON: ${error instanceof Error ? error.message : error}`
    throw new ValidationError(`${fn}: entry ${index} is ${message}`, [
      { path: String(index), message },
    ])
  }
  // a UTF-16 unit is 1 to 3 bytes: count only when the text may be over
  if (text.length * 3 > limit) {
    const bytes = utf8Length(text)
    if (bytes > limit) throw tooLarge(fn, index, bytes, limit)
  }
  return text
}

function tooLarge(
  fn: string,
  index: number,
  bytes: number,
  limit: number,
  cause?: unknown,
): SessionTooLargeError {
  const message = `expected at most ${limit} bytes of JSON, got ${bytes}${cause ? ' or more' : ''}`
  return new SessionTooLargeError(
    `${fn}: entry ${index} is too large to store (${message}); nothing was written`,
    [{ path: String(index), message }],
    { details: { what: 'entry', index, bytes, limit }, ...(cause ? { cause } : {}) },
  )
}
