import { mkdir, readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import {
  assertSessionId,
  assertString,
  errnoCode,
  invalidArgument,
  parseWith,
  type SessionEntry,
  type SessionEntryStream,
  type SessionLeaseStore,
  type SessionLoadResult,
  type SessionStore,
} from '@contextkit/core'
import {
  lockMsSchema,
  mkdirWithinRoot,
  openWithinRoot,
  unlinkWithinRoot,
  withFileLock,
} from '@contextkit/core/node'
import { SessionIdSchema } from '@contextkit/core/schemas'
import { collectSession, DEFAULT_SESSION_LEASE_TTL_MS } from '@contextkit/core/store'
import * as z from 'zod'
import { batchBytes } from './session-batch.js'
import {
  checkEntry,
  ioError,
  lockError,
  readTail,
  SESSION_FILE_SUFFIX,
  SESSION_LOCK_SUFFIX,
  type Within,
  withinOf,
  writeBatch,
} from './session-files.js'
import { acquireFileLease } from './session-lease.js'
import { sessionFileStream } from './session-reader.js'

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
  /**
   * How long a session's lease (`acquireLease`, taken by `runAgent` for the whole run) lives
   * without a heartbeat when the request names no `ttlMs`: 1 to 2^31 − 1 ms. A holder on this
   * host whose process is gone loses it at once; a hung one, or one on another host sharing the
   * directory, when it was not renewed for this long. Default `30000` ms.
   */
  leaseTtlMs?: number
}

const OptionsSchema = z
  .strictObject({
    fsync: z.boolean().default(true),
    lockTimeoutMs: lockMsSchema().default(30_000),
    lockStaleMs: lockMsSchema().default(20_000),
    root: z.string().min(1).optional(),
    leaseTtlMs: lockMsSchema(1).default(DEFAULT_SESSION_LEASE_TTL_MS),
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
  /**
   * Every entry, read forwards a block at a time as it is iterated (core's
   * `SessionStore.stream`): memory bounded by the longest line, whatever the file's size.
   */
  stream(id: string): SessionEntryStream
  /** One attempt at the session's lease, kept in `<id>.jsonl.lease` (core's `SessionLeaseStore`). */
  acquireLease: SessionLeaseStore['acquireLease']
}

/** One store's directory, its confinement and its checked options. */
interface Sessions {
  /** The directory (absolute). */
  root: string
  within: Within
  fsync: boolean
  /** Run `fn` holding the lock file of session `id`. */
  locked<T>(id: string, fn: () => Promise<T>): Promise<T>
  /** The file of session `id` (absolute). */
  fileOf(id: string): string
  /** Default lease lifetime, ms. */
  leaseTtlMs: number
  /** Create the store's directory (and the ones between it and its root). */
  ensureDir(): Promise<void>
}

/** Check the store's arguments; nothing touches the disk. */
function sessionsOf(dir: string, options: JsonlSessionStoreOptions): Sessions {
  assertString(dir, 'jsonlSessionStore', 'dir')
  if (dir.length === 0) invalidArgument('jsonlSessionStore', 'dir', 'a non-empty directory path')
  const opts = parseWith(OptionsSchema, options ?? {}, 'jsonlSessionStore options')
  const root = resolve(dir)
  const lockOptions = { timeoutMs: opts.lockTimeoutMs, staleMs: opts.lockStaleMs }
  const within = withinOf(root, opts.root)
  return {
    root,
    within,
    fsync: opts.fsync,
    locked: (id, fn) =>
      withFileLock(join(root, `${id}${SESSION_LOCK_SUFFIX}`), fn, lockOptions, lockError),
    fileOf: (id) => join(root, `${id}${SESSION_FILE_SUFFIX}`),
    leaseTtlMs: opts.leaseTtlMs,
    ensureDir: () => ensureDir(root, within),
  }
}

/** Create the store's directory inside its root (`append` and `acquireLease` write there). */
async function ensureDir(root: string, within: Within): Promise<void> {
  try {
    await mkdir(within.root, { recursive: true })
    if (within.dir !== '') await mkdirWithinRoot(within.root, within.dir)
  } catch (error) {
    throw ioError(`cannot create the session directory ${root}`, error, root, 'mkdir')
  }
}

/**
 * `stream`: the file read forwards, a block at a time (`session-reader.ts`); a torn last line is
 * looked at again once its writer is done.
 */
function streamSession(s: Sessions, id: string): SessionEntryStream {
  assertSessionId(id, 'jsonlSessionStore.stream')
  const file = s.fileOf(id)
  return sessionFileStream({
    open: async () => {
      try {
        return (await openWithinRoot(s.within.root, s.within.file(id))).handle
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return null
        throw error
      }
    },
    locked: (fn) => s.locked(id, fn),
    failed: (error) => ioError(`cannot read the session ${file}`, error, file, 'load'),
  })
}

/** `loadTail`: read backwards as far as a resume needs. */
async function loadSessionTail(s: Sessions, id: string): Promise<SessionLoadResult> {
  assertSessionId(id, 'jsonlSessionStore.loadTail')
  const read = () => readTail(s.within, id, s.fileOf(id))
  let tail = await read()
  if (tail.tornTail) {
    // A writer may be in the middle of its write: look again once it has finished.
    tail = await s.locked(id, read).catch(() => tail)
  }
  return { entries: tail.entries, warnings: tail.warnings }
}

/** `append`: check every entry, then write the batch whole under the lock. */
async function appendSession(s: Sessions, id: string, entries: unknown): Promise<void> {
  assertSessionId(id, 'jsonlSessionStore.append')
  if (!Array.isArray(entries)) {
    invalidArgument('jsonlSessionStore.append', 'entries', 'an array of session entries', entries)
  }
  const checked = entries.map((entry, i) => checkEntry(id, entry, i))
  if (checked.length === 0) return
  const toBytes = (list: readonly SessionEntry[]) => batchBytes(list, 'jsonlSessionStore.append')
  const payload = toBytes(checked)
  const rest = checked.filter((e) => e.type !== 'session')
  // what to write when the file already has lines: never a second header
  const existing =
    rest.length === checked.length ? payload : rest.length === 0 ? null : toBytes(rest)
  await s.ensureDir()
  const file = s.fileOf(id)
  await s.locked(id, () => writeBatch(s.within, id, file, payload, s.fsync, existing))
}

/** `list`: the safe ids of the session files in the directory, sorted. */
async function listSessions(s: Sessions): Promise<string[]> {
  let names: string[]
  try {
    names = (await readdir(s.root, { withFileTypes: true }))
      .filter((d) => d.isFile() && d.name.endsWith(SESSION_FILE_SUFFIX))
      .map((d) => d.name.slice(0, -SESSION_FILE_SUFFIX.length))
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return []
    throw ioError(`cannot list the session directory ${s.root}`, error, s.root, 'list')
  }
  return names.filter((id) => SessionIdSchema.safeParse(id).success).sort()
}

/** `delete`: remove the file under its lock; `false` when there was none. */
async function deleteSession(s: Sessions, id: string): Promise<boolean> {
  assertSessionId(id, 'jsonlSessionStore.delete')
  const file = s.fileOf(id)
  try {
    // a symlink on the way is refused before the lock file is made beside it
    await (await openWithinRoot(s.within.root, s.within.file(id))).handle.close()
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false
    throw ioError(`cannot delete the session ${file}`, error, file, 'delete')
  }
  return s.locked(id, async () => {
    try {
      return await unlinkWithinRoot(s.within.root, s.within.file(id))
    } catch (error) {
      throw ioError(`cannot delete the session ${file}`, error, file, 'delete')
    }
  })
}

/**
 * A crash-safe, append-only {@link @contextkit/core#SessionStore}: one `<id>.jsonl` file per session in `dir`,
 * one JSON entry per line.
 *
 * - `append` validates every entry first (a `ValidationError`, nothing written), then, holding
 *   the session's lock file, writes the whole batch with one `write` call and `fsync`s it. It
 *   never reads the session: it looks at the file's last byte only, and when a crashed writer
 *   left a torn last line, starts the batch on a fresh line. Cost is O(1) in session length.
 * - `append` refuses an entry whose JSON line is larger than core's `SESSION_ENTRY_MAX_BYTES`
 *   (256 MiB), or a batch larger than Node's largest buffer, with a `SessionTooLargeError`
 *   (nothing written): every line written can be read back.
 * - `stream` reads the file forwards in 1 MiB blocks and gives out the entries of each block as
 *   it goes: memory bounded by the block and the longest line (at most `SESSION_ENTRY_MAX_BYTES`),
 *   whatever the file's size. `load` is `stream` collected (it holds every entry it returns; no
 *   string ever holds more than one line). A line longer than `SESSION_ENTRY_MAX_BYTES` (written
 *   by something else) is skipped with `session_line_too_long`, without being held.
 * - `load` and `stream` never fail because of a bad line: a torn last line, a corrupt or invalid
 *   line in the middle are skipped with a `SessionWarning` and every other entry is kept; a torn
 *   last line is read again, from its offset, once its writer is done (under the lock).
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
 * - `acquireLease` (core's session lease: one run per session at a time) keeps the holder in
 *   `<id>.jsonl.lease`, read and written under that lock; a lease is over when its holder's
 *   process is gone (same host) or it was not renewed for its `ttlMs` (see `leaseTtlMs`).
 *
 * Nothing touches the disk until the first `append` (which creates `dir`).
 */
export function jsonlSessionStore(
  dir: string,
  options: JsonlSessionStoreOptions = {},
): JsonlSessionStore {
  const s = sessionsOf(dir, options)
  return {
    dir: s.root,
    pathOf(id) {
      assertSessionId(id, 'jsonlSessionStore.pathOf')
      return s.fileOf(id)
    },
    load: async (id) => {
      assertSessionId(id, 'jsonlSessionStore.load')
      return collectSession(streamSession(s, id))
    },
    stream: (id) => streamSession(s, id),
    loadTail: (id) => loadSessionTail(s, id),
    append: (id, entries) => appendSession(s, id, entries),
    list: () => listSessions(s),
    delete: (id) => deleteSession(s, id),
    acquireLease: (id, request) => acquireFileLease(s, id, request),
  }
}
