import { type Stats, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { assertOptions, errnoCode } from '@contextkit/core'
import { readTextFile, type TextFileRead } from '@contextkit/core/node'
import { PrefillReadError } from './errors.js'

/** One cached file: its trimmed text and the identity it was read with. */
interface CacheEntry {
  mtimeMs: number
  size: number
  text: string
}

/** Outcome of reading one candidate file. */
export type FileRead =
  | { kind: 'missing' }
  | { kind: 'text'; text: string; path: string; cached: boolean }
  | { kind: 'failed'; error: PrefillReadError }

/** Options of {@link createPrefillCache}. */
export interface PrefillCacheOptions {
  /** How many files to remember; the oldest is forgotten first. Default `64`. */
  maxEntries?: number
}

/**
 * A cache of prefill file contents keyed by path, modification time and size: a repeated read
 * of an unchanged file costs one `stat` and no read. Each `prefill()` middleware owns one; the
 * plain {@link readPrefillContent} shares a module-wide one unless given its own.
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
   * Read the trimmed UTF-8 text of `path` (at most `maxBytes`), served from the cache when the
   * file's mtime and size are unchanged. Never throws: a missing file is `missing`, any other
   * problem a `failed` result carrying a {@link PrefillReadError}.
   */
  read(path: string, maxBytes: number): Promise<FileRead>
}

/**
 * Stat without throwing for a missing path; other errors are returned, ENOTDIR (a file where a
 * folder of the path should be) included on every Node version.
 */
export function statQuiet(path: string): Stats | undefined | NodeJS.ErrnoException {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? notADirectory(path)
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
  const maxEntries = Math.max(1, options.maxEntries ?? 64)
  const entries = new Map<string, CacheEntry>()
  let hits = 0
  let misses = 0

  async function readFresh(path: string, maxBytes: number): Promise<FileRead> {
    // core's small-file reader: O_NONBLOCK (a FIFO never hangs), regular files only, at most
    // maxBytes + 1 bytes read, strict UTF-8, one BOM removed
    const read = await readTextFile(path, { maxBytes })
    if (!read.ok) {
      if (read.problem === 'missing') return { kind: 'missing' }
      return { kind: 'failed', error: readError(path, reasonOf(read), read.cause) }
    }
    const text = read.text.trim()
    if (entries.size >= maxEntries && !entries.has(path)) {
      const oldest = entries.keys().next().value
      if (oldest !== undefined) entries.delete(oldest)
    }
    entries.set(path, { mtimeMs: read.stats.mtimeMs, size: read.stats.size, text })
    return { kind: 'text', text, path, cached: false }
  }

  return {
    get size() {
      return entries.size
    },
    get hits() {
      return hits
    },
    get misses() {
      return misses
    },
    clear() {
      entries.clear()
    },
    read(path, maxBytes) {
      const st = statQuiet(path)
      if (st === undefined) {
        entries.delete(path)
        return Promise.resolve({ kind: 'missing' })
      }
      if (st instanceof Error) {
        if (isMissing(st)) return Promise.resolve({ kind: 'missing' })
        return Promise.resolve({ kind: 'failed', error: readError(path, errnoOf(st), st) })
      }
      const hit = entries.get(path)
      if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size && hit.size <= maxBytes) {
        hits++
        return Promise.resolve({ kind: 'text', text: hit.text, path, cached: true })
      }
      misses++
      return readFresh(path, maxBytes)
    },
  }
}
