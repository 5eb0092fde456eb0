import { type FileHandle, mkdir, readdir } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import {
  assertSessionId,
  assertString,
  invalidArgument,
  parseWith,
  type SessionEntry,
  SessionEntrySchema,
  SessionIdSchema,
  type SessionLoadResult,
  type SessionStore,
  ValidationError,
} from '@contextkit/core'
import {
  appendWithinRoot,
  type FileLockError,
  FileLockTimeoutError,
  lockMsSchema,
  mkdirWithinRoot,
  openWithinRoot,
  unlinkWithinRoot,
  withFileLock,
} from '@contextkit/core/node'
import * as z from 'zod'
import { errnoCode, SessionIoError, SessionLockError } from './errors.js'
import { parseSessionLines } from './lines.js'
import { readSessionTail, type SessionTail } from './tail.js'

/** File name suffix of a session file: `<id>.jsonl`. */
export const SESSION_FILE_SUFFIX = '.jsonl'
/** File name suffix of a session's lock file: `<id>.jsonl.lock`. */
export const SESSION_LOCK_SUFFIX = '.jsonl.lock'

/** Options of {@link jsonlSessionStore}. */
export interface JsonlSessionStoreOptions {
  /**
   * `fsync` every appended batch before `append` resolves. Each `append` call is one turn's
   * batch (the loop appends once, at turn end), so a resolved `append` is on disk. Turn it off
   * only where losing the last turns on a power cut is fine (tests, scratch runs). Default `true`.
   */
  fsync?: boolean
  /**
   * Wait at most this long for a session's lock before failing with `SessionLockError`: 0 to
   * 2^31 − 1 ms. Default `30000` ms.
   */
  lockTimeoutMs?: number
  /**
   * Age after which a lock whose holder cannot be checked (another host, no process start time)
   * is abandoned and broken: 0 to 2^31 − 1 ms. A holder on this host is judged by itself: its
   * lock is broken at once when the process is gone or its pid was reused (another start time),
   * and never by age while it lives (core's `withFileLock`). Appends hold the lock for one write
   * and one fsync. Default `20000` ms.
   */
  lockStaleMs?: number
  /**
   * The directory the session files must stay in: `dir` itself or a directory holding it (give
   * the workspace when `dir` is its `.contextkit/sessions`). Its own path is trusted; below it
   * no symlink is followed and no hard-linked file written (core's `appendWithinRoot`), so a
   * planted symlinked `.contextkit/` or `<id>.jsonl` is refused. Default `dir`.
   */
  root?: string
}

const OptionsSchema = z
  .strictObject({
    fsync: z.boolean().default(true),
    lockTimeoutMs: lockMsSchema().default(30_000),
    lockStaleMs: lockMsSchema().default(20_000),
    root: z.string().min(1).optional(),
  })
  .strict()

/** A {@link @contextkit/core#SessionStore} kept as one JSONL file per session in a directory. */
export interface JsonlSessionStore extends SessionStore {
  /** The directory (absolute) the session files live in. */
  readonly dir: string
  /** The file a session id is kept in (`<dir>/<id>.jsonl`); checks the id. */
  pathOf(id: string): string
  /**
   * The tail a resume needs, read backwards from the end of the file (core's
   * `SessionStore.loadTail`); `load` is the full load.
   */
  loadTail(id: string): Promise<SessionLoadResult>
}

/**
 * A crash-safe, append-only {@link @contextkit/core#SessionStore}: one `<id>.jsonl` file per session in `dir`,
 * one JSON entry per line.
 *
 * - `append` validates every entry first (a `ValidationError`, nothing written), then, holding
 *   the session's lock file, writes the whole batch with one `write` call and `fsync`s it. It
 *   never reads the session: it looks at the file's last byte only, and when a crashed writer
 *   left a torn last line, starts the batch on a fresh line. Cost is O(1) in session length.
 * - `load` never fails because of a bad line: a torn last line, a corrupt or invalid line in
 *   the middle are skipped with a `SessionWarning` and every other entry is kept.
 * - `loadTail` reads the file backwards in 64 KiB blocks only as far as a resume needs (the
 *   newest usable compaction entry's first kept message and the last assistant reply) plus the
 *   header line, and parses and validates only those lines: on a long compacted session it costs
 *   what the tail costs. `runAgent` uses it. `load` reads, parses and validates every line, for
 *   tools that want the whole history. Both skip bad lines alike, with the same warnings.
 * - A header (`type: 'session'`) is written only as the first line of a new file: the check runs
 *   under the lock, so two processes starting one new session write one header. A batch whose
 *   header meets a session that already has lines (another process created it first, or its
 *   first line is a header `load` skipped, e.g. `version: 0`) keeps its other entries and drops
 *   its header; that line stays as it is and `load` keeps warning about it.
 * - The lock file `<id>.jsonl.lock` is core's `withFileLock` (see `lockStaleMs`).
 *
 * Nothing touches the disk until the first `append` (which creates `dir`).
 */
export function jsonlSessionStore(
  dir: string,
  options: JsonlSessionStoreOptions = {},
): JsonlSessionStore {
  assertString(dir, 'jsonlSessionStore', 'dir')
  if (dir.length === 0) invalidArgument('jsonlSessionStore', 'dir', 'a non-empty directory path')
  const opts = parseWith(OptionsSchema, options ?? {}, 'jsonlSessionStore options')
  const root = resolve(dir)
  const within = withinOf(root, opts.root)
  const lockOptions = { timeoutMs: opts.lockTimeoutMs, staleMs: opts.lockStaleMs }
  const locked = <T>(id: string, fn: () => Promise<T>) =>
    withFileLock(lockOf(id), fn, lockOptions, lockError)
  const fileOf = (id: string) => join(root, `${id}${SESSION_FILE_SUFFIX}`)
  const lockOf = (id: string) => join(root, `${id}${SESSION_LOCK_SUFFIX}`)

  return {
    dir: root,

    pathOf(id) {
      assertSessionId(id, 'jsonlSessionStore.pathOf')
      return fileOf(id)
    },

    async load(id): Promise<SessionLoadResult> {
      assertSessionId(id, 'jsonlSessionStore.load')
      const file = fileOf(id)
      const first = await readSession(within, id, file)
      if (first === null) return { entries: [], warnings: [] }
      let parsed = parseSessionLines(first)
      if (parsed.tornTail) {
        // A writer may be in the middle of its write: look again once it has finished.
        try {
          const again = await locked(id, () => readSession(within, id, file))
          parsed = again === null ? parseSessionLines(new Uint8Array()) : parseSessionLines(again)
        } catch {
          // Cannot take the lock (read-only directory, a busy writer): report what we saw.
        }
      }
      return { entries: parsed.entries, warnings: parsed.warnings }
    },

    async loadTail(id): Promise<SessionLoadResult> {
      assertSessionId(id, 'jsonlSessionStore.loadTail')
      const file = fileOf(id)
      const read = () => readTail(within, id, file)
      let tail = await read()
      if (tail.tornTail) {
        // A writer may be in the middle of its write: look again once it has finished.
        tail = await locked(id, read).catch(() => tail)
      }
      return { entries: tail.entries, warnings: tail.warnings }
    },

    async append(id, entries) {
      assertSessionId(id, 'jsonlSessionStore.append')
      if (!Array.isArray(entries)) {
        invalidArgument(
          'jsonlSessionStore.append',
          'entries',
          'an array of session entries',
          entries,
        )
      }
      const checked = entries.map((entry, i) => checkEntry(id, entry, i))
      if (checked.length === 0) return
      const toBytes = (list: SessionEntry[]) =>
        Buffer.from(`${list.map((e) => JSON.stringify(e)).join('\n')}\n`, 'utf8')
      const payload = toBytes(checked)
      const rest = checked.filter((e) => e.type !== 'session')
      // what to write when the file already has lines: never a second header
      const existing =
        rest.length === checked.length ? payload : rest.length === 0 ? null : toBytes(rest)
      try {
        await mkdir(within.root, { recursive: true })
        if (within.dir !== '') await mkdirWithinRoot(within.root, within.dir)
      } catch (error) {
        throw ioError(`cannot create the session directory ${root}`, error, root, 'mkdir')
      }
      const file = fileOf(id)
      await locked(id, () => writeBatch(within, id, file, payload, opts.fsync, existing))
    },

    async list() {
      let names: string[]
      try {
        names = (await readdir(root, { withFileTypes: true }))
          .filter((d) => d.isFile() && d.name.endsWith(SESSION_FILE_SUFFIX))
          .map((d) => d.name.slice(0, -SESSION_FILE_SUFFIX.length))
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return []
        throw ioError(`cannot list the session directory ${root}`, error, root, 'list')
      }
      return names.filter((id) => SessionIdSchema.safeParse(id).success).sort()
    },

    async delete(id) {
      assertSessionId(id, 'jsonlSessionStore.delete')
      const file = fileOf(id)
      try {
        // a symlink on the way is refused before the lock file is made beside it
        await (await openWithinRoot(within.root, within.file(id))).handle.close()
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return false
        throw ioError(`cannot delete the session ${file}`, error, file, 'delete')
      }
      return locked(id, async () => {
        try {
          return await unlinkWithinRoot(within.root, within.file(id))
        } catch (error) {
          throw ioError(`cannot delete the session ${file}`, error, file, 'delete')
        }
      })
    },
  }
}

/** Validate one entry of a batch; a header must name the session it is appended to. */
function checkEntry(id: string, entry: unknown, index: number): SessionEntry {
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
interface Within {
  /** The root (absolute). */
  root: string
  /** The store's directory relative to the root, `/`-separated (`''` when it is the root). */
  dir: string
  /** A session file relative to the root. */
  file(id: string): string
}

function withinOf(dir: string, rootOption: string | undefined): Within {
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

/**
 * The bytes of a session file, or `null` when there is none. Read through core's
 * `openWithinRoot`: a session file (or a directory on its way) that is a symlink is refused.
 */
async function readSession(within: Within, id: string, file: string): Promise<Uint8Array | null> {
  try {
    const { handle } = await openWithinRoot(within.root, within.file(id))
    try {
      return await handle.readFile()
    } finally {
      await handle.close().catch(() => {})
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw ioError(`cannot read the session ${file}`, error, file, 'load')
  }
}

/** The tail of a session file a resume needs (core's `readSessionTail`); empty when there is none. */
async function readTail(within: Within, id: string, file: string): Promise<SessionTail> {
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
function lockError(error: FileLockError): SessionLockError | SessionIoError {
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
async function writeBatch(
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

function ioError(message: string, cause: unknown, path: string, op: string): SessionIoError {
  if (cause instanceof SessionIoError) return cause
  return new SessionIoError(`${message}: ${errnoCode(cause) ?? String(cause)}`, {
    cause,
    details: { path, op, errno: errnoCode(cause) },
  })
}
