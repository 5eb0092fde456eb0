import { invalidArgument } from '@contextkit/core'
import { resumeTailBoundary, SESSION_ENTRY_MAX_BYTES } from '@contextkit/core/store'
import {
  decodeLine,
  type EntryResult,
  isBlank,
  type LongLine,
  type ParsedSessionLines,
  parseEntry,
  recordLine,
  regionLines,
  tooLongLine,
} from './session-lines.js'

/** Where {@link readSessionTail} reads a session file from: its size and positioned reads. */
export interface ByteSource {
  /** Bytes in the file. */
  readonly size: number
  /** The `length` bytes at `position` (all of them: the range lies inside the file). */
  read(position: number, length: number): Promise<Uint8Array>
}

/** What {@link readSessionTail} read. */
export interface SessionTail extends ParsedSessionLines {
  /** `true` when the tail reached the first line, so every line was read. */
  whole: boolean
  /** Byte offset of the tail's first line (0 when `whole`). */
  start: number
}

/** Default bytes read per step backwards: 64 KiB. */
export const TAIL_BLOCK_BYTES = 64 * 1024

const NEWLINE = 0x0a

/** One line of the file, read backwards: its text and what it parsed to. */
interface TailLine {
  text: string | null
  /** `undefined` for a blank line. */
  result: EntryResult | null | undefined
}

/**
 * Read a JSONL session file from its end, block by block, only as far back as a resume needs,
 * and its first line (the header). The lines read are parsed and validated like
 * `parseSessionLines` does (same entries, same warnings with the same line numbers); lines before
 * the tail are never parsed. The tail reaches back to the first kept message of the newest
 * compaction entry that `applyCompaction` would use (a compaction naming an id the session does
 * not hold before it is passed over, as there) and to the last assistant reply (whose tool calls,
 * results and approvals `runStateOf` reads); with no usable compaction entry that is the whole
 * file, and so is it when the newest compaction names an id not met on the way (it may be
 * anywhere before it: only the file's start settles that). So `applyCompaction`, `runStateOf` and `lastEntryId` of the tail equal those of the full
 * load, and the tail's entries are the full load's header followed by a suffix of its entries.
 * Multi-byte characters split across blocks are joined before decoding (lines split on `\n`
 * bytes, never part of a UTF-8 sequence).
 */
export async function readSessionTail(
  source: ByteSource,
  blockSize: number = TAIL_BLOCK_BYTES,
): Promise<SessionTail> {
  if (!Number.isSafeInteger(blockSize) || blockSize < 1) {
    invalidArgument('readSessionTail', 'blockSize', 'a positive integer', blockSize)
  }
  const out: SessionTail = { entries: [], warnings: [], tornTail: false, whole: true, start: 0 }
  if (source.size === 0) return out
  const reader = await BackwardLines.open(source, blockSize)
  const reached = resumeTailBoundary()
  const lines: TailLine[] = []
  let start = 0
  scan: for (let region = await reader.next(); region !== null; region = await reader.next()) {
    const texts = region.lines
    for (let i = texts.length - 1; i >= 0; i--) {
      const line = texts[i] as string | null | LongLine
      const text = line === null || typeof line === 'string' ? line : null
      const result = lineResult(line)
      lines.push({ text, result })
      if (result?.ok && reached(result.entry)) {
        start = region.start + offsetOfSegment(region.bytes, i)
        break scan
      }
    }
    start = region.start
  }
  lines.reverse()
  out.start = start
  out.whole = start === 0
  const firstLineNo = needsLineNumbers(lines) ? await lineNumberAt(source, start, blockSize) : 0
  if (!out.whole) await readHeader(source, blockSize, out)
  const last = lines.length - 1
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as TailLine
    if (line.result === undefined) continue
    recordLine(line.result, line.text, firstLineNo + i, i === last && !reader.terminated, out)
  }
  return out
}

/**
 * What one line read backwards parses to (`undefined`: blank). A line longer than core's
 * `SESSION_ENTRY_MAX_BYTES` is skipped as the forward read skips it (same warning).
 */
function lineResult(line: string | null | LongLine): EntryResult | null | undefined {
  if (line === null) return null
  if (typeof line !== 'string') return tooLongLine(line.tooLong, SESSION_ENTRY_MAX_BYTES)
  return isBlank(line) ? undefined : parseEntry(line)
}

/** Byte offset of the `index`-th `\n`-separated segment of `bytes`. */
function offsetOfSegment(bytes: Buffer, index: number): number {
  let at = 0
  for (let i = 0; i < index; i++) at = bytes.indexOf(NEWLINE, at) + 1
  return at
}

/** Line numbers matter only where a warning can name one: a bad line, or a header entry. */
function needsLineNumbers(lines: readonly TailLine[]): boolean {
  return lines.some(
    (l) =>
      l.result === null ||
      (l.result !== undefined && (!l.result.ok || l.result.entry.type === 'session')),
  )
}

/** The 1-based number of the line starting at byte `start` (counts the newlines before it). */
async function lineNumberAt(source: ByteSource, start: number, blockSize: number): Promise<number> {
  let count = 1
  for (let pos = 0; pos < start; pos += blockSize) {
    const block = asBuffer(await source.read(pos, Math.min(blockSize, start - pos)))
    for (let i = block.indexOf(NEWLINE); i >= 0; i = block.indexOf(NEWLINE, i + 1)) count++
  }
  return count
}

/** Parse the file's first line (its header) into `out`, read forwards to its newline. */
async function readHeader(source: ByteSource, blockSize: number, out: SessionTail): Promise<void> {
  let bytes: Uint8Array = new Uint8Array(0)
  for (let pos = 0; pos < source.size; pos += blockSize) {
    const block = asBuffer(await source.read(pos, Math.min(blockSize, source.size - pos)))
    const end = block.indexOf(NEWLINE)
    bytes = concat(bytes, end < 0 ? block : block.subarray(0, end))
    if (end >= 0) break
  }
  const text = decodeLine(bytes)
  if (text !== null && isBlank(text)) return
  recordLine(text === null ? null : parseEntry(text), text, 1, false, out)
}

/** Bytes read per step backwards grow to at most this (fewer reads when the tail is long). */
const MAX_BLOCK_BYTES = 4 * 1024 * 1024

/**
 * A file's lines from the end, a region of whole lines at a time: each step reads a block before
 * the bytes already read (twice the last one, up to 4 MiB) and decodes the lines it completes at
 * once (a line split across blocks is joined first, so no character is cut).
 */
class BackwardLines {
  /** `true` when the file ends with a newline (so its last line is whole). */
  readonly terminated: boolean
  /** The bytes not yet returned: from `#bufStart` to the end of the next line to return. */
  #buf: Buffer
  /** File offset of `#buf[0]`. */
  #bufStart: number
  #block: number
  #done = false

  private constructor(
    readonly source: ByteSource,
    blockSize: number,
    block: Buffer,
  ) {
    this.#block = blockSize
    this.#bufStart = source.size - block.length
    this.terminated = block[block.length - 1] === NEWLINE
    this.#buf = this.terminated ? block.subarray(0, block.length - 1) : block
  }

  /** Start at the end of a non-empty file. */
  static async open(source: ByteSource, blockSize: number): Promise<BackwardLines> {
    const from = Math.max(0, source.size - blockSize)
    const block = asBuffer(await source.read(from, source.size - from))
    return new BackwardLines(source, blockSize, block)
  }

  /**
   * The next region back: its whole lines in file order (`null`: not UTF-8), its bytes and where
   * it starts; `null` after the first line.
   */
  async next(): Promise<{
    start: number
    bytes: Buffer
    lines: Array<string | null | LongLine>
  } | null> {
    if (this.#done) return null
    for (;;) {
      const at = this.#buf.indexOf(NEWLINE)
      if (at >= 0 || this.#bufStart === 0) {
        const bytes = this.#buf.subarray(at + 1)
        const start = this.#bufStart + at + 1
        this.#buf = this.#buf.subarray(0, Math.max(0, at))
        if (at < 0) this.#done = true
        return { start, bytes, lines: regionLines(bytes, SESSION_ENTRY_MAX_BYTES) }
      }
      this.#block = Math.min(this.#block * 2, MAX_BLOCK_BYTES)
      const from = Math.max(0, this.#bufStart - this.#block)
      const block = asBuffer(await this.source.read(from, this.#bufStart - from))
      this.#buf = Buffer.concat([block, this.#buf])
      this.#bufStart = from
    }
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}
