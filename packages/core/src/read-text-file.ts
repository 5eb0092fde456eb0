import { type BigIntStats, constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { errnoCode } from './errno.js'
import { assertObject } from './errors.js'
import { type FileStamp, fileStamp } from './file-stamp.js'

/** Options of {@link readTextFile}. */
export interface ReadTextFileOptions {
  /** Largest file accepted, in bytes; a larger one is refused (`too-large`), never cut. Required. */
  maxBytes: number
  /**
   * Flags `open` is called with when `file` is a path. Default `O_RDONLY | O_NONBLOCK`: a FIFO
   * planted at the path opens without blocking and is then refused as `not-a-file`.
   */
  flags?: number
  /**
   * Refuse the file as `binary` when a NUL byte appears in its first this-many bytes (checked
   * before decoding, so a binary file is not reported as bad UTF-8). Default `0`: no check.
   */
  binarySniffBytes?: number
}

/** Why {@link readTextFile} gave no text. */
export type TextFileProblem =
  /** Nothing at the path (`ENOENT`, `ENOTDIR`). */
  | 'missing'
  /** A directory, FIFO, socket or device (`stats` says which). */
  | 'not-a-file'
  /** More than `maxBytes` bytes (`size`). */
  | 'too-large'
  /** A NUL byte within `binarySniffBytes`. */
  | 'binary'
  /** The bytes are not valid UTF-8 (never replaced with U+FFFD). */
  | 'not-utf8'
  /** Any other error of the file system (`errno`, `cause`). */
  | 'io'

/** What {@link readTextFile} returns: the text, or why there is none. Never thrown. */
export type TextFileRead =
  | {
      ok: true
      /** The decoded text, a leading byte order mark removed. */
      text: string
      /** The bytes read (the whole file). */
      bytes: Buffer
      /** Whether the file started with a UTF-8 byte order mark. */
      bom: boolean
      /** `fstat` of the handle the bytes were read from (`bigint: true`). */
      stats: BigIntStats
      /** The file's {@link FileStamp}, from that `fstat` (taken before the read). */
      stamp: FileStamp
    }
  | {
      ok: false
      problem: TextFileProblem
      /** The system error code, for `missing` and `io`. */
      errno?: string
      /** Bytes on disk (or read so far), for `too-large`. */
      size?: number
      /** Present once the file was opened (`bigint: true`). */
      stats?: BigIntStats
      /** The bytes read, for `binary` and `not-utf8` (e.g. to move a corrupt file aside). */
      bytes?: Buffer
      /** The underlying error, if any. */
      cause?: unknown
    }

const DEFAULT_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

/**
 * Read a small text file as strict UTF-8 with a byte cap — the one way contextkit's packages read
 * their own small files (prefill's `PREFILL.md`, resumption's state file, preload's files).
 *
 * `file` is a path (opened with `flags`) or a handle the caller opened itself (after its own
 * checks; it is not closed here). The handle is `fstat`ed (regular files only), at most
 * `maxBytes + 1` bytes are read from it — so a file that grows after the `fstat` is still refused,
 * not read whole — then checked for NUL bytes (optional) and decoded as strict UTF-8. Never
 * throws for anything about the file: every failure is a `{ ok: false, problem }` result.
 * Node-only.
 */
export async function readTextFile(
  file: string | FileHandle,
  options: ReadTextFileOptions,
): Promise<TextFileRead> {
  assertObject(options, 'readTextFile', 'options')
  const { maxBytes } = options
  let handle: FileHandle
  if (typeof file === 'string') {
    try {
      handle = await open(file, options.flags ?? DEFAULT_FLAGS)
    } catch (cause) {
      const errno = errnoCode(cause)
      const problem = errno === 'ENOENT' || errno === 'ENOTDIR' ? 'missing' : 'io'
      return { ok: false, problem, ...(errno === undefined ? {} : { errno }), cause }
    }
  } else {
    handle = file
  }
  let stats: BigIntStats | undefined
  try {
    stats = await handle.stat({ bigint: true })
    if (!stats.isFile()) return { ok: false, problem: 'not-a-file', stats }
    const size = Number(stats.size)
    if (size > maxBytes) return { ok: false, problem: 'too-large', size, stats }
    const bytes = await readCapped(handle, maxBytes + 1, size)
    if (bytes.length > maxBytes) {
      return { ok: false, problem: 'too-large', size: Math.max(size, bytes.length), stats }
    }
    const sniff = options.binarySniffBytes ?? 0
    if (sniff > 0 && bytes.subarray(0, sniff).includes(0)) {
      return { ok: false, problem: 'binary', stats, bytes }
    }
    let text: string
    try {
      text = strictUtf8.decode(bytes)
    } catch (cause) {
      return { ok: false, problem: 'not-utf8', stats, bytes, cause }
    }
    const bom = text.charCodeAt(0) === 0xfeff
    return {
      ok: true,
      text: bom ? text.slice(1) : text,
      bytes,
      bom,
      stats,
      stamp: fileStamp(stats),
    }
  } catch (cause) {
    const errno = errnoCode(cause)
    return {
      ok: false,
      problem: 'io',
      ...(errno === undefined ? {} : { errno }),
      ...(stats === undefined ? {} : { stats }),
      cause,
    }
  } finally {
    if (typeof file === 'string') await handle.close().catch(() => undefined)
  }
}

// `ignoreBOM: true` keeps a leading BOM in the output, so exactly one is removed above and
// reported as `bom`. `fatal: true` throws on invalid UTF-8 instead of writing U+FFFD.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Read up to `cap` bytes from the start of the handle, growing the buffer as needed. */
async function readCapped(handle: FileHandle, cap: number, sizeHint: number): Promise<Buffer> {
  let buf = Buffer.allocUnsafe(Math.min(cap, Math.max(sizeHint + 1, 4096)))
  let n = 0
  for (;;) {
    if (n === buf.length) {
      if (buf.length >= cap) break
      const bigger = Buffer.allocUnsafe(Math.min(cap, buf.length * 2))
      buf.copy(bigger, 0, 0, n)
      buf = bigger
    }
    const { bytesRead } = await handle.read(buf, n, buf.length - n, n)
    if (bytesRead === 0) break
    n += bytesRead
  }
  return buf.subarray(0, n)
}
