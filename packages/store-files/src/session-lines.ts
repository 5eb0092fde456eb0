import { isAscii, isUtf8 } from 'node:buffer'
import { invalidArgument, type SessionEntry, type SessionWarning } from '@contextkit/core'
import { SessionEntrySchema } from '@contextkit/core/schemas'
import { isNormalSessionEntry, SESSION_FORMAT_VERSION } from '@contextkit/core/store'
import { SESSION_WARNING_CODES } from './warning-codes.js'

/** What {@link parseSessionLines} found in a session file. */
export interface ParsedSessionLines {
  entries: SessionEntry[]
  warnings: SessionWarning[]
  /** `true` when the last line was cut off mid-write (see `SESSION_WARNING_CODES.tornLine`). */
  tornTail: boolean
}

const NEWLINE = 0x0a
/** Strict UTF-8 keeping a leading byte order mark as U+FEFF (so such a line is not JSON). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Read the entries of a JSONL session file. Never throws: a line that is not UTF-8, not JSON or
 * not a valid {@link SessionEntry} is skipped with a warning naming its 1-based line number, and
 * every other line is kept. A last line without a newline is kept when it is a whole valid
 * entry, and otherwise reported as torn. Blank lines are ignored.
 */
export function parseSessionLines(bytes: Uint8Array): ParsedSessionLines {
  if (!(bytes instanceof Uint8Array))
    invalidArgument('parseSessionLines', 'bytes', 'a Uint8Array', bytes)
  const lines = splitLines(bytes)
  const out: ParsedSessionLines = { entries: [], warnings: [], tornTail: false }
  const last = lines.length - 1
  const terminated = endsWithNewline(bytes)
  for (let i = 0; i < lines.length; i++) {
    readLine(lines[i] as string | null, i + 1, i === last && !terminated, out)
  }
  return out
}

/**
 * Read one line of a session file into `out`: its entry, or a warning (see
 * {@link parseSessionLines}). `line` is `null` when its bytes are not UTF-8; `unterminated`
 * when it is the file's last line and has no newline. Blank lines add nothing.
 */
export function readLine(
  line: string | null,
  lineNo: number,
  unterminated: boolean,
  out: ParsedSessionLines,
): void {
  if (line !== null && isBlank(line)) return
  recordLine(line === null ? null : parseEntry(line), line, lineNo, unterminated, out)
}

/**
 * Put one parsed line into `out` (see {@link readLine}): `result` is what {@link parseEntry}
 * returned for `line` (`null`: not UTF-8).
 */
export function recordLine(
  result: EntryResult | null,
  line: string | null,
  lineNo: number,
  unterminated: boolean,
  out: ParsedSessionLines,
): void {
  if (result?.ok) {
    out.entries.push(result.entry)
    if (result.entry.type === 'session' && result.entry.version > SESSION_FORMAT_VERSION) {
      out.warnings.push({
        code: SESSION_WARNING_CODES.newerVersion,
        message: `line ${lineNo}: session format version ${result.entry.version} is newer than ${SESSION_FORMAT_VERSION}; entries this version cannot read are skipped`,
        line: lineNo,
      })
    }
  } else if (unterminated) {
    out.tornTail = true
    out.warnings.push({
      code: SESSION_WARNING_CODES.tornLine,
      message: `line ${lineNo}: the last line was cut off mid-write (${line?.length ?? 0} characters, no newline); skipped`,
      line: lineNo,
    })
  } else if (result?.kind === 'size') {
    out.warnings.push({
      code: SESSION_WARNING_CODES.lineTooLong,
      message: `line ${lineNo}: ${result.reason}; skipped`,
      line: lineNo,
    })
  } else if (result === null || result.kind === 'json') {
    out.warnings.push({
      code: SESSION_WARNING_CODES.corruptLine,
      message: `line ${lineNo}: ${result === null ? 'not valid UTF-8' : result.reason}; skipped`,
      line: lineNo,
    })
  } else {
    out.warnings.push({
      code: SESSION_WARNING_CODES.invalidEntry,
      message: `line ${lineNo}: not a valid session entry (${result.reason}); skipped`,
      line: lineNo,
    })
  }
}

/** A line of only JSON whitespace-like characters (what `trim` removes) is blank. */
export function isBlank(line: string): boolean {
  // the common case, a line starting with `{`, is decided by its first character
  return line.charCodeAt(0) !== 0x7b && line.trim() === ''
}

/** The text of one line's bytes (strict UTF-8), or `null` when they are not UTF-8. */
export function decodeLine(bytes: Uint8Array): string | null {
  if (isAscii(bytes))
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1')
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return null
  }
}

function endsWithNewline(bytes: Uint8Array): boolean {
  return bytes.length === 0 || bytes[bytes.length - 1] === NEWLINE
}

/**
 * Split on `\n` bytes (never part of a multi-byte UTF-8 sequence). A final empty segment (the
 * file ends with `\n`) is dropped.
 */
function splitLines(bytes: Uint8Array): Array<string | null> {
  if (bytes.length === 0) return []
  const lines = decodeSegments(bytes)
  if (endsWithNewline(bytes)) lines.pop()
  return lines
}

/**
 * The text of every `\n`-separated segment of `bytes`, the last one (maybe empty) included. The
 * whole is decoded at once when it is valid UTF-8 (the common case; ASCII, checked with SIMD by
 * `isAscii`, is decoded as Latin-1, the same characters for ASCII bytes and a plain copy, three
 * times faster than Node's `ascii` decoder and more than a strict UTF-8 decode); otherwise segment
 * by segment, and a segment that is not UTF-8 comes back as `null`.
 */
export function decodeSegments(bytes: Uint8Array): Array<string | null> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  if (isAscii(buffer)) return buffer.toString('latin1').split('\n')
  if (isUtf8(buffer)) return strictUtf8.decode(buffer).split('\n')
  const lines: Array<string | null> = []
  for (let start = 0; ; ) {
    const end = buffer.indexOf(NEWLINE, start)
    lines.push(decodeLine(buffer.subarray(start, end < 0 ? buffer.length : end)))
    if (end < 0) return lines
    start = end + 1
  }
}

/** A line longer than a line may be: only its length in bytes is known. */
export interface LongLine {
  tooLong: number
}

/**
 * The lines of `bytes` (whole lines, split on `\n`; the last segment, maybe empty, included), as
 * {@link decodeSegments} gives them, except that a segment longer than `limit` bytes is a
 * {@link LongLine} and is never decoded.
 */
export function regionLines(bytes: Buffer, limit: number): Array<string | null | LongLine> {
  if (bytes.length <= limit) return decodeSegments(bytes)
  const lines: Array<string | null | LongLine> = []
  for (let start = 0; ; ) {
    const found = bytes.indexOf(NEWLINE, start)
    const end = found < 0 ? bytes.length : found
    lines.push(
      end - start > limit ? { tooLong: end - start } : decodeLine(bytes.subarray(start, end)),
    )
    if (found < 0) return lines
    start = end + 1
  }
}

/** One line read: its entry, or why it is not one (`size`: longer than a line may be). */
export type EntryResult =
  | { ok: true; entry: SessionEntry }
  | { ok: false; kind: 'json' | 'schema' | 'size'; reason: string }

/** What a line of `bytes` bytes, more than `limit`, reads as: skipped, never decoded. */
export function tooLongLine(bytes: number, limit: number): EntryResult {
  return {
    ok: false,
    kind: 'size',
    reason: `${bytes} bytes, longer than the ${limit} bytes a session line may hold`,
  }
}

/** Parse and validate one non-blank line (core's fast normal-form check first, then the schema). */
export function parseEntry(line: string): EntryResult {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return { ok: false, kind: 'json', reason: `not JSON: ${reason}` }
  }
  if (isNormalSessionEntry(value)) return { ok: true, entry: value }
  const parsed = SessionEntrySchema.safeParse(value)
  if (parsed.success) return { ok: true, entry: parsed.data }
  const issue = parsed.error.issues[0]
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : ''
  return { ok: false, kind: 'schema', reason: `${where}${issue?.message ?? 'invalid'}` }
}
