import { type BigIntStats, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { assertOptions, errnoCode, invalidArgument } from '@contextkit/core'
import {
  createFileReadCache,
  FILE_STAMP_RACY_MS,
  fileStamp,
  readTextFile,
  type TextFileRead,
} from '@contextkit/core/node'
import { PrefillReadError } from './errors.js'

/** Outcome of reading one candidate file. */
export type FileRead =
  | { kind: 'missing' }
  | { kind: 'text'; text: string; path: string; cached: boolean }
  | { kind: 'failed'; error: PrefillReadError }

/** Options of {@link createPrefillCache}. */
export interface PrefillCacheOptions {
  /** How many files to remember; the oldest is forgotten first. Default `64`. */
  maxEntries?: number
  /**
   * A file changed less than this many milliseconds before its read is not remembered (read
   * again next time): a write in the same tick of a coarse file system clock could leave its
   * stamp as it was. Default core's `FILE_STAMP_RACY_MS` (2,000).
   */
  racyMs?: number
}

/**
 * A cache of prefill file contents over core's stamp-checked `FileReadCache` (keyed by path and
 * `FileStamp`: device, inode, size, modification and change times): a repeated read of an
 * unchanged file costs one `stat` and no read, and a file replaced by one of the same size and
 * modification time is read again. Bounded, least recently used first. Each `prefill()`
 * middleware owns one; the plain {@link readPrefillContent} uses a fresh one per call unless
 * given its own.
 */
export interface PrefillCache {
  /** Number of cached files. */
  readonly size: number
  /** How many reads were served from the cache (for tests and diagnostics). */
  readonly hits: number
  /** How many reads went to the disk. */
  readonly misses: number
  /** Forget everything. */
  clear(): void
  /**
   * Read the trimmed UTF-8 text of `path` (at most `maxBytes`), served from the cache while a
   * `stat` shows the very file read, unchanged. Never throws: a missing file is `missing`, any other
   * problem a `failed` result carrying a {@link PrefillReadError}.
   */
  read(path: string, maxBytes: number): Promise<FileRead>
}

/**
 * Stat without throwing for a missing path; other errors are returned, ENOTDIR (a file where a
 * folder of the path should be) included on every Node version.
 */
export function statQuiet(path: string): BigIntStats | undefined | NodeJS.ErrnoException {
  try {
    return statSync(path, { bigint: true, throwIfNoEntry: false }) ?? notADirectory(path)
  } catch (error) {
    return error as NodeJS.ErrnoException
  }
}

/**
 * Node ≥ 22 answers `undefined` for ENOTDIR as for ENOENT (Node 20 threw ENOTDIR): `path` is
 * really missing only when its nearest existing ancestor is a folder. Otherwise an ENOTDIR error.
 */
function notADirectory(path: string): NodeJS.ErrnoException | undefined {
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    const stats = statSync(dir, { throwIfNoEntry: false })
    if (stats) {
      if (stats.isDirectory()) return undefined
      return Object.assign(new Error(`ENOTDIR: not a directory, stat '${path}'`), {
        code: 'ENOTDIR',
        syscall: 'stat',
        path,
      })
    }
    if (dirname(dir) === dir) return undefined
  }
}

function errnoOf(error: unknown): string {
  return errnoCode(error) ?? 'EIO'
}

function readError(path: string, reason: string, cause?: unknown): PrefillReadError {
  return new PrefillReadError(`Cannot use prefill file ${path} (${reason}); prefill is off`, {
    recoverable: true,
    cause,
    details: { path, reason },
  })
}

/** The `details.reason` of a failed read: an errno code, or `too-large`, `not-utf8`, `not-a-file`. */
function reasonOf(read: Extract<TextFileRead, { ok: false }>): string {
  switch (read.problem) {
    case 'not-a-file':
      return read.stats?.isDirectory() ? 'EISDIR' : 'not-a-file'
    case 'too-large':
    case 'not-utf8':
      return read.problem
    default:
      return read.errno ?? 'EIO'
  }
}

/** Whether a failure of `stat`/`open` means "no such file" (the feature is silently off). */
export function isMissing(error: unknown): boolean {
  return errnoOf(error) === 'ENOENT'
}

/** Create a {@link PrefillCache}. */
export function createPrefillCache(options: PrefillCacheOptions = {}): PrefillCache {
  assertOptions(options, 'createPrefillCache')
  const racyMs = options.racyMs ?? FILE_STAMP_RACY_MS
  if (typeof racyMs !== 'number' || !(racyMs >= 0)) {
    invalidArgument('createPrefillCache', 'options.racyMs', 'a number ≥ 0', racyMs)
  }
  const maxEntries = Math.max(1, Math.floor(options.maxEntries ?? 64))
  const files = createFileReadCache<string>({ maxEntries, racyMs })

  async function readFresh(path: string, maxBytes: number): Promise<FileRead> {
    const startedMs = Date.now()
    // core's small-file reader: O_NONBLOCK (a FIFO never hangs), regular files only, at most
    // maxBytes + 1 bytes read, strict UTF-8, one BOM removed
    const read = await readTextFile(path, { maxBytes })
    if (!read.ok) {
      if (read.problem === 'missing') return { kind: 'missing' }
      return { kind: 'failed', error: readError(path, reasonOf(read), read.cause) }
    }
    const text = read.text.trim()
    // a file changed within the racy window of its read is not kept: read again next time
    files.store(path, read.stamp, text, startedMs)
    return { kind: 'text', text, path, cached: false }
  }

  return {
    get size() {
      return files.size
    },
    get hits() {
      return files.hits
    },
    get misses() {
      return files.misses
    },
    clear() {
      files.clear()
    },
    read(path, maxBytes) {
      const st = statQuiet(path)
      if (st === undefined) {
        files.delete(path)
        return Promise.resolve({ kind: 'missing' })
      }
      if (st instanceof Error) {
        if (isMissing(st)) return Promise.resolve({ kind: 'missing' })
        return Promise.resolve({ kind: 'failed', error: readError(path, errnoOf(st), st) })
      }
      // the stat taken above is the lookup's: one stat per read, hit or miss
      // a cached file over this caller's maxBytes is read again (and refused as too large)
      const accept = () => Number(st.size) <= maxBytes
      const text = files.lookup(path, { stamp: fileStamp(st), accept })
      if (text !== undefined) {
        return Promise.resolve({ kind: 'text', text, path, cached: true })
      }
      return readFresh(path, maxBytes)
    },
  }
}
