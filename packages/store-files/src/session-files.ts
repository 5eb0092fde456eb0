import type { FileHandle } from 'node:fs/promises'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import {
  errnoCode,
  invalidArgument,
  parseWith,
  type SessionEntry,
  ValidationError,
} from '@contextkit/core'
import {
  appendWithinRoot,
  type FileLockError,
  FileLockTimeoutError,
  openWithinRoot,
} from '@contextkit/core/node'
import { SessionEntrySchema } from '@contextkit/core/schemas'
import { SessionIoError, SessionLockError } from './errors.js'
import { readSessionTail, type SessionTail } from './session-tail.js'

// The file work of the JSONL session store (jsonl-store.ts): where a session's file is inside
// the root its writes are confined to, and how it is read and appended to.

/** File name suffix of a session file: `<id>.jsonl`. */
export const SESSION_FILE_SUFFIX = '.jsonl'
/** File name suffix of a session's lock file: `<id>.jsonl.lock`. */
export const SESSION_LOCK_SUFFIX = '.jsonl.lock'

/** Validate one entry of a batch; a header must name the session it is appended to. */
export function checkEntry(id: string, entry: unknown, index: number): SessionEntry {
  const parsed = parseWith(SessionEntrySchema, entry, `session entry ${index} for "${id}"`)
  if (parsed.type === 'session' && parsed.id !== id) {
    throw new ValidationError(
      `Invalid session entry ${index} for "${id}": the header names session "${parsed.id}"`,
      [{ path: `${index}.id`, message: `expected "${id}"` }],
    )
  }
  return parsed
}

/** Where a store's files sit inside the root its writes are confined to. */
export interface Within {
  /** The root (absolute). */
  root: string
  /** The store's directory relative to the root, `/`-separated (`''` when it is the root). */
  dir: string
  /** A session file relative to the root. */
  file(id: string): string
}

export function withinOf(dir: string, rootOption: string | undefined): Within {
  const root = resolve(rootOption ?? dir)
  const rel = relative(root, dir)
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    invalidArgument('jsonlSessionStore', 'options.root', `a directory holding ${dir}`)
  }
  const relDir = rel.split(sep).join('/')
  return {
    root,
    dir: relDir,
    file: (id) => `${relDir === '' ? '' : `${relDir}/`}${id}${SESSION_FILE_SUFFIX}`,
  }
}

/** The tail of a session file a resume needs ({@link readSessionTail}); empty when there is none. */
export async function readTail(within: Within, id: string, file: string): Promise<SessionTail> {
  let handle: FileHandle
  try {
    handle = (await openWithinRoot(within.root, within.file(id))).handle
  } catch (error) {
    if (errnoCode(error) === 'ENOENT')
      return { entries: [], warnings: [], tornTail: false, whole: true, start: 0 }
    throw ioError(`cannot read the session ${file}`, error, file, 'load')
  }
  try {
    const { size } = await handle.stat()
    const read = async (position: number, length: number) => {
      const buffer = Buffer.allocUnsafe(length)
      let done = 0
      while (done < length) {
        const { bytesRead } = await handle.read(buffer, done, length - done, position + done)
        if (bytesRead === 0) break
        done += bytesRead
      }
      // appends only grow a file (a failed one is cut back to no less than it was): only
      // something outside the store can make it shorter than its size when we looked
      if (done < length) throw new Error('the file became shorter while it was read')
      return buffer
    }
    return await readSessionTail({ size, read })
  } catch (error) {
    throw ioError(`cannot read the session ${file}`, error, file, 'load')
  } finally {
    await handle.close().catch(() => {})
  }
}

/** Core's lock failures as the session store's errors. */
export function lockError(error: FileLockError): SessionLockError | SessionIoError {
  const { message, details } = error
  return FileLockTimeoutError.isInstance(error)
    ? new SessionLockError(message, { cause: error, details })
    : new SessionIoError(message, { cause: error, details: { ...details, op: 'lock' } })
}

/**
 * Append `payload` (whole lines) to the session file, holding its lock, through core's
 * `appendWithinRoot`: no symlink or hard link followed below the root; a file not ending in a
 * newline had its last write torn, so the batch starts on a fresh line; a failed write is cut
 * back, so a batch is written whole or not at all. When the file already has lines, `existing`
 * (the batch without its header; `null`: nothing else) is written instead, so a session never
 * gets a second header. Reads only the file's size.
 */
export async function writeBatch(
  within: Within,
  id: string,
  file: string,
  payload: Buffer,
  fsync: boolean,
  existing: Buffer | null,
): Promise<void> {
  const data = (await sessionSize(within, id, file)) > 0 ? existing : payload
  if (data === null) return
  try {
    await appendWithinRoot(within.root, within.file(id), data, { fsync })
  } catch (error) {
    throw ioError(`cannot append to the session ${file}`, error, file, 'append')
  }
}

/** Bytes in the session file now (0 when it does not exist yet), opened without following links. */
async function sessionSize(within: Within, id: string, file: string): Promise<number> {
  let handle: FileHandle
  try {
    handle = (await openWithinRoot(within.root, within.file(id))).handle
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 0
    throw ioError(`cannot open the session ${file}`, error, file, 'append')
  }
  try {
    return (await handle.stat()).size
  } finally {
    await handle.close().catch(() => {})
  }
}

export function ioError(message: string, cause: unknown, path: string, op: string): SessionIoError {
  if (cause instanceof SessionIoError) return cause
  return new SessionIoError(`${message}: ${errnoCode(cause) ?? String(cause)}`, {
    cause,
    details: { path, op, errno: errnoCode(cause) },
  })
}
