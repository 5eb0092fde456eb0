import {
  invalidArgument,
  isNormalSessionEntry,
  SESSION_FORMAT_VERSION,
  type SessionEntry,
  SessionEntrySchema,
  type SessionWarning,
} from '@contextkit/core'

/**
 * The `code` of every {@link @contextkit/core#SessionWarning} the JSONL store reports on load. Stores of other
 * kinds are encouraged to use the same codes for the same situations.
 */
export const SESSION_WARNING_CODES = {
  /** The last line has no newline and is not a whole entry: a write was cut off. Skipped. */
  tornLine: 'session_torn_line',
  /** A line in the middle is not JSON (or not UTF-8). Skipped; the lines around it are kept. */
  corruptLine: 'session_corrupt_line',
  /** A line is JSON but not a valid entry. Skipped; the lines around it are kept. */
  invalidEntry: 'session_invalid_entry',
  /** The header names a newer format version than this package writes; entries read as far as possible. */
  newerVersion: 'session_newer_version',
} as const

/** What {@link parseSessionLines} found in a session file. */
export interface ParsedSessionLines {
  entries: SessionEntry[]
  warnings: SessionWarning[]
  /** `true` when the last line was cut off mid-write (see `SESSION_WARNING_CODES.tornLine`). */
  tornTail: boolean
}

const NEWLINE = 0x0a
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
/** Same, keeping a leading byte order mark as U+FEFF (what `Buffer#toString` did). */
const strictUtf8KeepBom = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

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
  const entries: SessionEntry[] = []
  const warnings: SessionWarning[] = []
  let tornTail = false
  const last = lines.length - 1
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string | null
    const unterminated = i === last && !endsWithNewline(bytes)
    const lineNo = i + 1
    if (line !== null && line.trim() === '') continue
    const result = line === null ? null : parseEntry(line)
    if (result?.ok) {
      entries.push(result.entry)
      if (result.entry.type === 'session' && result.entry.version > SESSION_FORMAT_VERSION) {
        warnings.push({
          code: SESSION_WARNING_CODES.newerVersion,
          message: `line ${lineNo}: session format version ${result.entry.version} is newer than ${SESSION_FORMAT_VERSION}; entries this version cannot read are skipped`,
          line: lineNo,
        })
      }
      continue
    }
    if (unterminated) {
      tornTail = true
      warnings.push({
        code: SESSION_WARNING_CODES.tornLine,
        message: `line ${lineNo}: the last line was cut off mid-write (${lines[i]?.length ?? 0} characters, no newline); skipped`,
        line: lineNo,
      })
    } else if (result === null || result.kind === 'json') {
      warnings.push({
        code: SESSION_WARNING_CODES.corruptLine,
        message: `line ${lineNo}: ${result === null ? 'not valid UTF-8' : result.reason}; skipped`,
        line: lineNo,
      })
    } else {
      warnings.push({
        code: SESSION_WARNING_CODES.invalidEntry,
        message: `line ${lineNo}: not a valid session entry (${result.reason}); skipped`,
        line: lineNo,
      })
    }
  }
  return { entries, warnings, tornTail }
}

function endsWithNewline(bytes: Uint8Array): boolean {
  return bytes.length === 0 || bytes[bytes.length - 1] === NEWLINE
}

/**
 * Split on `\n` bytes (never part of a multi-byte UTF-8 sequence). The whole file is decoded at
 * once when it is valid UTF-8 (the fast, common case); otherwise line by line, and a line that
 * is not UTF-8 comes back as `null`. A final empty segment (the file ends with `\n`) is dropped.
 */
function splitLines(bytes: Uint8Array): Array<string | null> {
  let whole: string | undefined
  try {
    whole = strictUtf8KeepBom.decode(bytes)
  } catch {
    // not valid UTF-8 somewhere: decode line by line below
  }
  if (whole !== undefined) {
    const lines = whole.split('\n')
    if (lines[lines.length - 1] === '') lines.pop()
    return lines
  }
  const lines: Array<string | null> = []
  let start = 0
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start)
    if (end < 0) end = bytes.length
    try {
      lines.push(strictUtf8.decode(bytes.subarray(start, end)))
    } catch {
      lines.push(null)
    }
    start = end + 1
  }
  return lines
}

type EntryResult =
  | { ok: true; entry: SessionEntry }
  | { ok: false; kind: 'json' | 'schema'; reason: string }

function parseEntry(line: string): EntryResult {
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
