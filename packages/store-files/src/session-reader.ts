import type { FileHandle } from 'node:fs/promises'
import type { SessionEntry, SessionEntryStream, SessionWarning } from '@contextkit/core'
import { SESSION_ENTRY_MAX_BYTES } from '@contextkit/core/store'
import {
  decodeLine,
  isBlank,
  type LongLine,
  type ParsedSessionLines,
  parseEntry,
  readLine,
  recordLine,
  regionLines,
  tooLongLine,
} from './session-lines.js'

// The JSONL session file read forwards, a block at a time, in memory bounded by the block and
// the longest line: `load` and `stream` of the JSONL store. The lines are read as
// `parseSessionLines` reads a whole file (same entries, same warnings, same line numbers).

/** Where {@link readSessionForward} reads: positioned reads, `0` at the end of the file. */
export interface ForwardSource {
  /** Read into `buffer` (from its start) the bytes at `position`; resolves how many were read. */
  read(buffer: Uint8Array, position: number): Promise<number>
}

/** Where a forward read starts: a byte offset at the start of a line, and the lines before it. */
export interface ReadStart {
  position: number
  /** Lines before `position` (0 at the start of the file). */
  linesBefore: number
}

/** A last line that was cut off mid-write, as {@link readSessionForward} found it. */
export interface TornLine extends ReadStart {
  /** The `session_torn_line` warning it would be reported with. */
  warning: SessionWarning
}

/** Options of {@link readSessionForward}. */
export interface ForwardReadOptions {
  /** Where to start. Default: the start of the file. */
  from?: ReadStart
  /** Bytes read at once. Default 1 MiB. */
  blockSize?: number
  /** Longest line read; a longer one is skipped with a warning. Default `SESSION_ENTRY_MAX_BYTES`. */
  maxLineBytes?: number
}

/** Default bytes read at once: 1 MiB. */
export const FORWARD_BLOCK_BYTES = 1024 * 1024

const NEWLINE = 0x0a

/** The line being read across blocks: its bytes so far, or only their count once too long. */
interface Carry {
  parts: Buffer[]
  bytes: number
  /** `true` once the line is longer than the limit: its bytes are no longer kept. */
  long: boolean
  /** File offset of the line's first byte. */
  start: number
}

/**
 * The entries of a JSONL session file from `from` on, read forwards. Warnings go to `warnings`
 * as the lines are read. A last line without a newline that is not a whole entry is not
 * reported: it is returned through `torn` (set when the iteration ends), so the caller can look
 * again once its writer is done, from that line on.
 */
export async function* readSessionForward(
  source: ForwardSource,
  warnings: SessionWarning[],
  torn: { line?: TornLine },
  options: ForwardReadOptions = {},
): AsyncGenerator<SessionEntry> {
  const blockSize = options.blockSize ?? FORWARD_BLOCK_BYTES
  const limit = options.maxLineBytes ?? SESSION_ENTRY_MAX_BYTES
  let position = options.from?.position ?? 0
  let lineNo = options.from?.linesBefore ?? 0
  const buffer = Buffer.allocUnsafe(blockSize)
  const carry: Carry = { parts: [], bytes: 0, long: false, start: position }
  const out: ParsedSessionLines = { entries: [], warnings, tornTail: false }
  for (;;) {
    const read = await source.read(buffer, position)
    if (read === 0) break
    let block = buffer.subarray(0, read)
    position += read
    const first = block.indexOf(NEWLINE)
    if (first < 0) {
      extend(carry, block, limit)
      continue
    }
    if (carry.bytes > 0 || carry.long) {
      extend(carry, block.subarray(0, first), limit)
      finishLine(carry, ++lineNo, limit, out)
      block = block.subarray(first + 1)
    }
    const last = block.lastIndexOf(NEWLINE)
    if (last >= 0) {
      for (const line of regionLines(block.subarray(0, last), limit))
        readText(line, ++lineNo, limit, out)
      block = block.subarray(last + 1)
    }
    carry.start = position - block.length
    if (block.length > 0) extend(carry, block, limit)
    yield* drain(out)
  }
  if (carry.bytes > 0 || carry.long) {
    const end = { linesBefore: lineNo, position: carry.start }
    finishLine(carry, ++lineNo, limit, out, true)
    if (out.tornTail) torn.line = { ...end, warning: out.warnings.pop() as SessionWarning }
  }
  yield* drain(out)
}

/** Read one whole line of a region (see `regionLines`) into `out`. */
function readText(
  line: string | null | LongLine,
  lineNo: number,
  limit: number,
  out: ParsedSessionLines,
): void {
  if (line === null || typeof line === 'string') readLine(line, lineNo, false, out)
  else recordLine(tooLongLine(line.tooLong, limit), null, lineNo, false, out)
}

/** The entries read so far, handed out once. */
function drain(out: ParsedSessionLines): SessionEntry[] {
  const entries = out.entries
  out.entries = []
  return entries
}

/** Add `bytes` to the line being read (a copy: the block is read into again). */
function extend(carry: Carry, bytes: Buffer, limit: number): void {
  carry.bytes += bytes.length
  if (carry.long) return
  if (carry.bytes > limit) {
    carry.long = true
    carry.parts = []
    return
  }
  carry.parts.push(Buffer.from(bytes))
}

/** Read the carried line (number `lineNo`) into `out`, then start a new one. */
function finishLine(
  carry: Carry,
  lineNo: number,
  limit: number,
  out: ParsedSessionLines,
  unterminated = false,
): void {
  if (carry.long) {
    recordLine(tooLongLine(carry.bytes, limit), null, lineNo, unterminated, out)
  } else {
    const text = decodeLine(Buffer.concat(carry.parts, carry.bytes))
    if (text === null || !isBlank(text)) {
      recordLine(text === null ? null : parseEntry(text), text, lineNo, unterminated, out)
    }
  }
  carry.parts = []
  carry.bytes = 0
  carry.long = false
}

/** How {@link sessionFileStream} reaches a session's file. */
export interface SessionFileAccess {
  /** Open the file for reading (`null` when there is none); the caller closes it. */
  open(): Promise<FileHandle | null>
  /** Run `fn` holding the session's lock. */
  locked<T>(fn: () => Promise<T>): Promise<T>
  /** A failed read as the store's error. */
  failed(error: unknown): Error
}

/**
 * The JSONL store's `stream`: the file read forwards ({@link readSessionForward}); a torn last
 * line is read again, from its own offset, once its writer is done (holding the lock). When the
 * lock cannot be taken (a read-only directory, a busy writer) the torn line is reported.
 */
export function sessionFileStream(
  access: SessionFileAccess,
  options: ForwardReadOptions = {},
): SessionEntryStream {
  const warnings: SessionWarning[] = []
  return {
    warnings,
    async *[Symbol.asyncIterator]() {
      const torn: { line?: TornLine } = {}
      if (!(yield* readFile(access, warnings, torn, options))) return
      if (torn.line === undefined) return
      const line = torn.line
      const again: { entries: SessionEntry[]; warnings: SessionWarning[] } | null = await access
        .locked(async () => {
          const more = { entries: [] as SessionEntry[], warnings: [] as SessionWarning[] }
          const still: { line?: TornLine } = {}
          const from = { ...options, from: line }
          const entries = readFile(access, more.warnings, still, from)
          for (let next = await entries.next(); next.done !== true; next = await entries.next())
            more.entries.push(next.value)
          if (still.line !== undefined) more.warnings.push(still.line.warning)
          return more
        })
        .catch(() => null)
      if (again === null) {
        warnings.push(line.warning)
        return
      }
      warnings.push(...again.warnings)
      yield* again.entries
    },
  }
}

/** Read the file (see {@link readSessionForward}); resolves `false` when there is none. */
async function* readFile(
  access: SessionFileAccess,
  warnings: SessionWarning[],
  torn: { line?: TornLine },
  options: ForwardReadOptions,
): AsyncGenerator<SessionEntry, boolean> {
  let handle: FileHandle | null
  try {
    handle = await access.open()
  } catch (error) {
    throw access.failed(error)
  }
  if (handle === null) return false
  const source: ForwardSource = {
    read: async (buffer, position) => {
      try {
        return (await handle.read(buffer, 0, buffer.length, position)).bytesRead
      } catch (error) {
        throw access.failed(error)
      }
    },
  }
  try {
    yield* readSessionForward(source, warnings, torn, options)
    return true
  } finally {
    await handle.close().catch(() => {})
  }
}
