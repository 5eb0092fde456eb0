import { mkdir, readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import {
  assertSessionId,
  assertString,
  errnoCode,
  invalidArgument,
  parseWith,
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
import { SessionIdSchema } from '@contextkit/core/store'
import * as z from 'zod'
import {
  checkEntry,
  ioError,
  lockError,
  readSession,
  readTail,
  SESSION_FILE_SUFFIX,
  SESSION_LOCK_SUFFIX,
  type Within,
  withinOf,
  writeBatch,
} from './session-files.js'
import { parseSessionLines } from './session-lines.js'

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
}

/** Check the store's arguments; nothing touches the disk. */
function sessionsOf(dir: string, options: JsonlSessionStoreOptions): Sessions {
  assertString(dir, 'jsonlSessionStore', 'dir')
  if (dir.length === 0) invalidArgument('jsonlSessionStore', 'dir', 'a non-empty directory path')
  const opts = parseWith(OptionsSchema, options ?? {}, 'jsonlSessionStore options')
  const root = resolve(dir)
  const lockOptions = { timeoutMs: opts.lockTimeoutMs, staleMs: opts.lockStaleMs }
  return {
    root,
    within: withinOf(root, opts.root),
    fsync: opts.fsync,
    locked: (id, fn) =>
      withFileLock(join(root, `${id}${SESSION_LOCK_SUFFIX}`), fn, lockOptions, lockError),
    fileOf: (id) => join(root, `${id}${SESSION_FILE_SUFFIX}`),
  }
}

/** `load`: every line parsed; a torn last line is looked at again once its writer is done. */
async function loadSession(s: Sessions, id: string): Promise<SessionLoadResult> {
  assertSessionId(id, 'jsonlSessionStore.load')
  const file = s.fileOf(id)
  const first = await readSession(s.within, id, file)
  if (first === null) return { entries: [], warnings: [] }
  let parsed = parseSessionLines(first)
  if (parsed.tornTail) {
    // A writer may be in the middle of its write: look again once it has finished.
    try {
      const again = await s.locked(id, () => readSession(s.within, id, file))
      parsed = parseSessionLines(again ?? new Uint8Array())
    } catch {
      // Cannot take the lock (read-only directory, a busy writer): report what we saw.
    }
  }
  return { entries: parsed.entries, warnings: parsed.warnings }
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
  const toBytes = (list: readonly unknown[]) =>
    Buffer.from(`${list.map((e) => JSON.stringify(e)).join('\n')}\n`, 'utf8')
  const payload = toBytes(checked)
  const rest = checked.filter((e) => e.type !== 'session')
  // what to write when the file already has lines: never a second header
  const existing =
    rest.length === checked.length ? payload : rest.length === 0 ? null : toBytes(rest)
  try {
    await mkdir(s.within.root, { recursive: true })
    if (s.within.dir !== '') await mkdirWithinRoot(s.within.root, s.within.dir)
  } catch (error) {
    throw ioError(`cannot create the session directory ${s.root}`, error, s.root, 'mkdir')
  }
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
  const s = sessionsOf(dir, options)
  return {
    dir: s.root,
    pathOf(id) {
      assertSessionId(id, 'jsonlSessionStore.pathOf')
      return s.fileOf(id)
    },
    load: (id) => loadSession(s, id),
    loadTail: (id) => loadSessionTail(s, id),
    append: (id, entries) => appendSession(s, id, entries),
    list: () => listSessions(s),
    delete: (id) => deleteSession(s, id),
  }
}
