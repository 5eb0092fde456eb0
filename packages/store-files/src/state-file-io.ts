import { randomUUID } from 'node:crypto'
import { rename } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { ContextkitError, errnoCode, invalidArgument, ValidationError } from '@contextkit/core'
import {
  type FileLockError,
  FileLockTimeoutError,
  type FileStamp,
  readTextFile,
  replaceWithinRoot,
} from '@contextkit/core/node'
import { StateCorruptError, StateIoError, StateLockError } from './errors.js'
import type { StateFileFormat } from './state-format.js'

// The file work of the state files (state-file.ts): read and judge one file, move a damaged one
// aside, write one atomically inside its root, and word the lock's failures.

/** The options the file work needs (see `StateFileOptions`). */
export interface FileWorkOptions {
  now?: () => number
  maxBytes?: number
  root?: string
}

/** Largest state file read or written by default (1 MiB). */
export const DEFAULT_MAX_BYTES = 1024 * 1024

/**
 * The largest `maxBytes` a state file accepts: 256 MiB (core's `SESSION_ENTRY_MAX_BYTES`), so
 * a state file is always read as one string well within V8's string limit (2^29 − 24 units).
 */
export const STATE_FILE_MAX_BYTES = 256 * 1024 * 1024

/**
 * What one read of a state file found. `corrupt` is `true` only when the content itself is
 * damaged (not UTF-8, not JSON, refused by the format): only such a file may be quarantined. A
 * file over the caller's `maxBytes`, or one the format calls foreign (a newer version:
 * `foreign`), is reported and left alone.
 */
export type ReadOutcome<T> =
  | { kind: 'missing' }
  | { kind: 'ok'; state: T; revision: number; bytes: Buffer; stamp: FileStamp }
  | { kind: 'bad'; error: ContextkitError; corrupt: boolean; foreign?: boolean; bytes?: Buffer }

/** A state file IO failure, recoverable. */
export function ioError(message: string, path: string, cause: unknown): StateIoError {
  return new StateIoError(message, { recoverable: true, cause, details: { path } })
}

/** Why `readTextFile` gave no text, as the outcome of a state file read. */
function unreadable<T>(
  path: string,
  maxBytes: number,
  read: Extract<Awaited<ReturnType<typeof readTextFile>>, { ok: false }>,
): ReadOutcome<T> {
  switch (read.problem) {
    case 'missing':
      return { kind: 'missing' }
    case 'not-a-file':
      return {
        kind: 'bad',
        error: ioError(`${path} is not a regular file`, path, undefined),
        corrupt: false,
      }
    case 'too-large': {
      const details = { path, size: read.size, maxBytes, reason: 'too-large' }
      const message = `${path} is larger than maxBytes (${maxBytes} bytes); it was left in place`
      const error = new StateCorruptError(message, { recoverable: true, details })
      return { kind: 'bad', error, corrupt: false }
    }
    case 'not-utf8': {
      const error = new StateCorruptError(`${path} is not valid UTF-8`, {
        recoverable: true,
        cause: read.cause,
        details: { path },
      })
      return { kind: 'bad', error, corrupt: true, ...(read.bytes ? { bytes: read.bytes } : {}) }
    }
    default:
      return {
        kind: 'bad',
        error: ioError(`cannot read ${path}`, path, read.cause),
        corrupt: false,
      }
  }
}

/** Read and judge one state file; never throws. */
export async function readStateFile<T>(
  path: string,
  format: StateFileFormat<T>,
  maxBytes: number,
): Promise<ReadOutcome<T>> {
  // core's small-file reader: O_NONBLOCK (a FIFO planted at the path cannot hang us), regular
  // files only, at most maxBytes + 1 bytes read, strict UTF-8, one BOM removed
  const read = await readTextFile(path, { maxBytes })
  if (!read.ok) return unreadable(path, maxBytes, read)
  const { bytes } = read
  try {
    const { state, revision } = format.decode(JSON.parse(read.text))
    return { kind: 'ok', state, revision, bytes, stamp: read.stamp }
  } catch (error) {
    if (ContextkitError.isInstance(error) && !ValidationError.isInstance(error)) {
      // the format's own refusal (a newer version): someone else's data, left alone
      return { kind: 'bad', error, corrupt: false, foreign: true, bytes }
    }
    const why = ValidationError.isInstance(error)
      ? 'does not match its format'
      : 'is not valid JSON'
    const corrupt = new StateCorruptError(`${path} ${why}`, {
      recoverable: true,
      cause: error,
      details: { path },
    })
    return { kind: 'bad', error: corrupt, corrupt: true, bytes }
  }
}

/** `file` relative to `root` (`/`-separated), or `null` when it is not inside. */
function insideRoot(root: string, file: string): string | null {
  const rel = relative(resolve(root), resolve(file))
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null
  return rel.split(sep).join('/')
}

/** The root a state file is written under: `options.root`, else the file's directory. */
export function rootOf(file: string, options: FileWorkOptions): { root: string; rel: string } {
  const root = options.root ?? dirname(file)
  const rel = insideRoot(root, file)
  if (rel === null) {
    invalidArgument('state file', 'options.root', `a directory holding ${file}`)
  }
  return { root, rel }
}

/**
 * Write `data` to `target` atomically through core's `replaceWithinRoot`: temp file beside it,
 * fsync, rename, fsync the folder; no symlink or hard link followed below the root.
 */
export async function writeAtomic(
  target: string,
  data: string | Buffer,
  options: FileWorkOptions,
): Promise<void> {
  const { root, rel } = rootOf(target, options)
  try {
    await replaceWithinRoot(root, rel, data)
  } catch (error) {
    throw ioError(`cannot write ${target}`, target, error)
  }
}

function quarantineName(path: string, now: () => number): string {
  const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-')
  return `${path}.corrupt-${stamp}-${randomUUID().slice(0, 6)}`
}

/**
 * Move a corrupt file aside (`<path>.corrupt-<time>-<id>`). Only a file that still holds exactly
 * the bytes judged corrupt is moved, so a good write that landed in between is never quarantined
 * by mistake. Returns where it went, or `null` when nothing was moved.
 */
export async function quarantine<T>(
  path: string,
  seen: Buffer | undefined,
  format: StateFileFormat<T>,
  options: FileWorkOptions,
): Promise<string | null> {
  const again = await readStateFile(path, format, options.maxBytes ?? DEFAULT_MAX_BYTES)
  if (again.kind !== 'bad' || !again.corrupt) return null
  if (seen && again.bytes && !seen.equals(again.bytes)) return null
  const target = quarantineName(path, options.now ?? Date.now)
  try {
    await rename(path, target)
    return target
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw ioError(`cannot move corrupt ${path} aside`, path, error)
  }
}

/** Core's lock failures as state file errors (a timeout, or the lock file cannot be made). */
export function lockError(error: FileLockError): ContextkitError {
  const { message } = error
  const options = { recoverable: true, cause: error, details: error.details }
  return FileLockTimeoutError.isInstance(error)
    ? new StateLockError(message, options)
    : new StateIoError(message, options)
}
