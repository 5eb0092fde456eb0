import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { basename } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { errnoCode, invalidArgument, parseWith } from '@contextkit/core'
import { Counting } from './analysis.js'
import { type ByteCounts, ByteTally, byteCountBuffer, completeEnd } from './byte-counters.js'
import { detect } from './detect.js'
import { AnalysisAbortedError, ContextFileReadError, ContextFileTypeError } from './errors.js'
import { AnalyzeFileOptionsSchema, resolveAnalyzeOptions } from './options.js'
import type { AnalyzeOptions, ContextMetadata } from './types.js'

/** Options of {@link analyzeFile}. */
export interface AnalyzeFileOptions extends AnalyzeOptions {
  /** Name reported as `fileName` (and used for the extension). Default: the path's base name. */
  fileName?: string
  /** Bytes read up front for detection (an integer ≥ 16). Default `65536`. */
  sniffBytes?: number
  /**
   * Size of the one reused read buffer for the streaming pass (an integer ≥ 16). Default
   * `1048576` (1 MiB).
   */
  chunkBytes?: number
  /** Aborts the read; the promise then rejects with an `AnalysisAbortedError`. */
  signal?: AbortSignal
}

function readError(path: string, error: unknown): ContextFileReadError {
  return new ContextFileReadError(`Cannot read context file ${path}`, {
    recoverable: true,
    cause: error,
    details: { path, errno: errnoCode(error) },
  })
}

/**
 * Describe a file like {@link analyzeContext} would describe its text, without loading it:
 * the first `sniffBytes` are decoded (UTF-8) for detection, then the rest streams through one
 * reused buffer while lines, characters and records are counted (on the bytes, never decoded,
 * for NDJSON, CSV/TSV and text; JSON is decoded chunk by chunk). Memory use does not grow with
 * the file size, so it works on files larger than memory. Adds `bytes` to the metadata.
 *
 * The path is opened once (non-blocking, so a FIFO cannot hang it) and must be a regular file.
 * Invalid UTF-8 is decoded to U+FFFD, exactly as `readFile(path, 'utf8')` would.
 *
 * @throws ContextFileReadError (`context_file_unreadable`) when it cannot be opened or read.
 * @throws ContextFileTypeError (`context_file_not_regular`) for directories, FIFOs, devices.
 * @throws AnalysisAbortedError (`analysis_aborted`) when `signal` aborts.
 * @throws ValidationError for bad option values.
 * @throws ValidationError when `path` is not a non-empty string (a programming error).
 */
export async function analyzeFile(
  path: string,
  fileOptions?: AnalyzeFileOptions,
): Promise<ContextMetadata> {
  if (typeof path !== 'string' || path.length === 0) {
    invalidArgument('analyzeFile', 'path', 'a non-empty string', path)
  }
  const opts = resolveAnalyzeOptions(fileOptions, AnalyzeFileOptionsSchema)
  const options = parseWith(AnalyzeFileOptionsSchema, fileOptions ?? {}, 'analyzeFile options')
  const sniffBytes = options.sniffBytes ?? 65536
  const chunkBytes = options.chunkBytes ?? 1 << 20
  const fileName = options.fileName ?? basename(path)
  const signal = options.signal
  const checkAbort = (): void => {
    if (signal?.aborted) {
      throw new AnalysisAbortedError(`Analysis of ${path} was aborted`, { cause: signal.reason })
    }
  }
  checkAbort()
  const fh = await openRegularFile(path)
  try {
    // room for a chunk after the (at most 3) bytes of a sequence cut by the previous read
    const { buffer, counts } = byteCountBuffer(Math.max(sniffBytes, chunkBytes + 3))
    const read = async (length: number, at: number): Promise<number> => {
      checkAbort()
      try {
        return (await fh.read(buffer, at, length, null)).bytesRead
      } catch (error) {
        throw readError(path, error)
      }
    }
    let filled = 0
    let eof = false
    while (filled < sniffBytes) {
      const n = await read(sniffBytes - filled, filled)
      if (n === 0) {
        eof = true
        break
      }
      filled += n
    }
    const decoder = new StringDecoder('utf8')
    let prefix = decoder.write(buffer.subarray(0, filled))
    if (eof) prefix += decoder.end()
    const complete = eof && prefix.length <= opts.sniffChars
    const sniffText = prefix.length > opts.sniffChars ? prefix.slice(0, opts.sniffChars) : prefix
    const counting = new Counting(detect(sniffText, complete, fileName, opts), opts)
    const bom = prefix.charCodeAt(0) === 0xfeff
    const tally = counting.byteTally(bom, (nd, csv) => new ByteTally(nd, csv))
    const r: ByteRead = { buffer, counts, filled, eof, chunkBytes, read }
    const bytes = tally ? await countBytes(tally, r) : await countText(counting, decoder, prefix, r)
    return counting.finish(fileName, bytes)
  } finally {
    await fh.close().catch(() => undefined)
  }
}

/** Opens `path` read-only and non-blocking (a FIFO cannot hang it); it must be a regular file. */
async function openRegularFile(path: string): Promise<FileHandle> {
  let fh: FileHandle
  try {
    fh = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    throw readError(path, error)
  }
  let isFile: boolean
  try {
    isFile = (await fh.stat()).isFile()
  } catch (error) {
    await fh.close().catch(() => undefined)
    throw readError(path, error)
  }
  if (!isFile) {
    await fh.close().catch(() => undefined)
    throw new ContextFileTypeError(`Context file ${path} is not a regular file`, {
      recoverable: true,
      details: { path },
    })
  }
  return fh
}

/**
 * The text path (JSON, whose shape scanner reads text, and CSV with a delimiter that is not
 * one ASCII byte): counts the decoded sniff window `prefix`, then decodes and counts the rest
 * chunk by chunk. Returns the file's size.
 */
async function countText(
  counting: Counting,
  decoder: StringDecoder,
  prefix: string,
  r: ByteRead,
): Promise<number> {
  let bytes = r.filled
  counting.push(prefix)
  if (r.eof) return bytes
  for (;;) {
    const n = await r.read(r.chunkBytes, 0)
    if (n === 0) break
    bytes += n
    counting.push(decoder.write(r.buffer.subarray(0, n)))
  }
  counting.push(decoder.end())
  return bytes
}

/** Where {@link countBytes} reads: the shared buffer, what is in it, and how to read more. */
export interface ByteRead {
  buffer: Buffer
  counts: ByteCounts
  /** Bytes of the sniff window already in `buffer`. */
  filled: number
  eof: boolean
  chunkBytes: number
  read(length: number, at: number): Promise<number>
}

/**
 * The byte path: counts the bytes already read and the rest of the file on the bytes, never
 * decoding them. Each run ends on a UTF-8 sequence boundary; a sequence cut by a read moves
 * to the front of the buffer and the next read appends to it. Returns the file's size.
 */
export async function countBytes(tally: ByteTally, r: ByteRead): Promise<number> {
  const { buffer, counts } = r
  let total = r.filled
  let bytes = total
  if (r.eof) {
    tally.push(buffer, 0, total, counts)
    return bytes
  }
  for (;;) {
    const end = completeEnd(buffer, total)
    tally.push(buffer, 0, end, counts)
    const carry = total - end
    if (carry > 0) buffer.copyWithin(0, end, total)
    const n = await r.read(r.chunkBytes, carry)
    if (n === 0) {
      tally.push(buffer, 0, carry, counts)
      return bytes
    }
    bytes += n
    total = carry + n
  }
}
