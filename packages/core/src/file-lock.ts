import { randomUUID } from 'node:crypto'
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import * as z from 'zod'
import { errnoCode } from './errno.js'
import { ContextkitError, invalidArgument, parseWith } from './errors.js'
import { HOST, ownerAlive, processStartTime } from './process-identity.js'
import { sideFileName, sweepAbandonedSideFiles } from './side-files.js'

/** Largest accepted lock duration: 2^31 − 1 ms (about 24.8 days, Node's longest timer). */
export const MAX_LOCK_MS = 2_147_483_647

/**
 * Age after which a lock file whose content cannot be read (empty, truncated, not a lock) is
 * broken. Locks appear whole (temp file, then `link`), so such a file is a leftover of a crash
 * or a disk fault; the grace covers file systems without hard links, where the lock is created
 * empty and filled right after.
 */
export const UNREADABLE_LOCK_GRACE_MS = 2000

/**
 * A lock duration in ms: a finite number from `min` to {@link MAX_LOCK_MS}.
 *
 * @throws ValidationError when `min` is not a number from 0 to {@link MAX_LOCK_MS}.
 */
export function lockMsSchema(min = 0): z.ZodNumber {
  if (typeof min !== 'number' || !(min >= 0 && min <= MAX_LOCK_MS)) {
    invalidArgument('lockMsSchema', 'min', `a number from 0 to ${MAX_LOCK_MS}`, min)
  }
  return z.number().min(min).max(MAX_LOCK_MS)
}

/** Zod schema of {@link FileLockOptions}. */
export const FileLockOptionsSchema = z
  .object({ timeoutMs: lockMsSchema().optional(), staleMs: lockMsSchema().optional() })
  .strict()

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up with a {@link FileLockTimeoutError} after this long. Default `5000` ms. */
  timeoutMs?: number
  /**
   * Age after which a lock whose owner cannot be checked (written on another host, or where the
   * process start time is unknown) counts as abandoned. A lock whose owner runs on this host is
   * judged by its owner instead: broken when the process is gone or its pid now belongs to
   * another process, never broken by age while its owner lives. Default `30000` ms.
   */
  staleMs?: number
}

/** A file lock could not be taken. Subclasses say why. */
export class FileLockError extends ContextkitError {
  /** The `code` of every error of this class: `file_lock`. */
  static override readonly code: string = 'file_lock'
}

/** The lock stayed held by a live owner for the whole `timeoutMs`. Recoverable. */
export class FileLockTimeoutError extends FileLockError {
  /** The `code` of every error of this class: `file_lock_timeout`. */
  static override readonly code: string = 'file_lock_timeout'
}

/** The lock file could not be created (missing folder, permissions, disk full). */
export class FileLockIoError extends FileLockError {
  /** The `code` of every error of this class: `file_lock_io`. */
  static override readonly code: string = 'file_lock_io'
}

/** What a lock file holds: who took it (host, pid, process start time) and when. */
interface LockOwner {
  host: string
  pid: number
  start: string | null
  token: string
  createdAt: number
}

type LockState = { kind: 'missing' } | { kind: 'unreadable' } | { kind: 'held'; owner: LockOwner }

/** In-process queue per lock path, so callers of one process wait in line instead of polling. */
const queues = new Map<string, Promise<unknown>>()

/**
 * Run `fn` holding the lock file `lockPath`, and release the lock when `fn` settles.
 *
 * The lock appears whole: its owner (host name, pid, process start time, a random token and
 * `createdAt`) is written to a temp file that is then hard-linked into place, so a lock file
 * never exists without its owner. Callers in this process queue per path; other processes retry
 * with a short backoff. A held lock is broken when:
 * - its owner ran on this host and is gone, or its pid now belongs to a process with another
 *   start time (a reused pid; start times are read on Linux, elsewhere only liveness is known);
 * - its owner cannot be checked (another host, no start time) and the lock is older than
 *   `staleMs`. A `createdAt` in the future (a clock ahead) is aged from the moment this process
 *   first saw the lock, so it turns stale `staleMs` after that rather than never.
 *
 * A live owner on this host is never broken by age: a slow writer keeps its lock, and waiters
 * get a {@link FileLockTimeoutError} instead of writing over it.
 *
 * @param toError - maps a lock failure to the caller's own error type (optional).
 * @throws FileLockTimeoutError when the lock cannot be taken within `timeoutMs`.
 * @throws FileLockIoError when the lock file cannot be created.
 * @throws ValidationError when an argument or option is invalid (names the option).
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
  toError?: (error: FileLockError) => Error,
): Promise<T> {
  if (typeof lockPath !== 'string' || lockPath.length === 0) {
    invalidArgument('withFileLock', 'lockPath', 'a non-empty path', lockPath)
  }
  if (typeof fn !== 'function') invalidArgument('withFileLock', 'fn', 'a function', fn)
  if (toError !== undefined && typeof toError !== 'function') {
    invalidArgument('withFileLock', 'toError', 'a function', toError)
  }
  const opts = parseWith(FileLockOptionsSchema, options ?? {}, 'withFileLock options')
  const resolved = { timeoutMs: opts.timeoutMs ?? 5000, staleMs: opts.staleMs ?? 30_000 }
  const previous = queues.get(lockPath) ?? Promise.resolve()
  const next = () => locked(lockPath, fn, resolved, toError)
  const run = previous.then(next, next)
  const tail = run.then(
    () => undefined,
    () => undefined,
  )
  queues.set(lockPath, tail)
  void tail.then(() => {
    if (queues.get(lockPath) === tail) queues.delete(lockPath)
  })
  return run
}

type Resolved = { timeoutMs: number; staleMs: number }

async function locked<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: Resolved,
  toError: ((error: FileLockError) => Error) | undefined,
): Promise<T> {
  let token: string
  try {
    token = await acquire(lockPath, options)
  } catch (error) {
    throw toError && FileLockError.isInstance(error) ? toError(error) : error
  }
  try {
    return await fn()
  } finally {
    await release(lockPath, token)
  }
}

async function acquire(lockPath: string, options: Resolved): Promise<string> {
  const owner: LockOwner = {
    host: HOST,
    pid: process.pid,
    start: await processStartTime(process.pid),
    token: randomUUID(),
    createdAt: 0,
  }
  const deadline = Date.now() + options.timeoutMs
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(lockPath, { ...owner, createdAt: Date.now() })) {
      // Temp files of waiters killed between their write and their link.
      await sweepAbandonedSideFiles([lockPath], options.staleMs)
      return owner.token
    }
    const seen = await readLock(lockPath)
    if (await isAbandoned(lockPath, seen, options.staleMs)) {
      await breakLock(lockPath, seen)
      continue
    }
    if (Date.now() >= deadline) {
      const holder = seen.kind === 'held' ? seen.owner : undefined
      throw new FileLockTimeoutError(
        `timed out after ${options.timeoutMs} ms waiting for the lock ${lockPath}`,
        {
          recoverable: true,
          details: { path: lockPath, holderPid: holder?.pid, holderHost: holder?.host },
        },
      )
    }
    await sleep(Math.min(50, 2 + attempt * 2) + Math.random() * 8)
  }
}

/** When this process first saw each lock (by path and token): the age of a future `createdAt`. */
const firstSeen = new Map<string, number>()

function ageOf(key: string, stamp: number): number {
  const now = Date.now()
  let seen = firstSeen.get(key)
  if (seen === undefined) {
    seen = now
    firstSeen.set(key, seen)
    if (firstSeen.size > 512) firstSeen.delete(firstSeen.keys().next().value as string)
  }
  return now - Math.min(stamp, seen)
}

async function isAbandoned(lockPath: string, seen: LockState, staleMs: number): Promise<boolean> {
  if (seen.kind === 'missing') return false // released in between: try again
  if (seen.kind === 'held') {
    const alive = await ownerAlive(seen.owner)
    if (alive !== 'unknown') return !alive
    return ageOf(`${lockPath}\0${seen.owner.token}`, seen.owner.createdAt) > staleMs
  }
  const mtime = await stat(lockPath).then(
    (s) => s.mtimeMs,
    () => null,
  )
  if (mtime === null) return false
  return ageOf(`${lockPath}\0mtime:${mtime}`, mtime) > UNREADABLE_LOCK_GRACE_MS
}

/**
 * Create the lock file holding `owner`; `false` when it already exists. Written to a private
 * temp file first and hard-linked into place; where hard links are not supported, falls back to
 * an exclusive create followed by the write.
 */
async function tryCreate(lockPath: string, owner: LockOwner): Promise<boolean> {
  const body = JSON.stringify(owner)
  const temp = sideFileName(lockPath, 'tmp')
  try {
    const handle = await open(temp, 'wx')
    try {
      await handle.writeFile(body)
    } finally {
      await handle.close()
    }
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw ioError(lockPath, error)
  }
  try {
    await link(temp, lockPath)
    return true
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'EEXIST') return false
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw ioError(lockPath, error)
  } finally {
    await unlink(temp).catch(() => {})
  }
  try {
    const handle = await open(lockPath, 'wx')
    try {
      await handle.writeFile(body)
    } finally {
      await handle.close()
    }
    return true
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false
    throw ioError(lockPath, error)
  }
}

function ioError(lockPath: string, cause: unknown): FileLockIoError {
  return new FileLockIoError(
    `cannot create the lock ${lockPath}: ${errnoCode(cause) ?? String(cause)}`,
    { cause, details: { path: lockPath, errno: errnoCode(cause) } },
  )
}

async function readLock(lockPath: string): Promise<LockState> {
  let text: string
  try {
    text = await readFile(lockPath, 'utf8')
  } catch (error) {
    return errnoCode(error) === 'ENOENT' ? { kind: 'missing' } : { kind: 'unreadable' }
  }
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null) return { kind: 'unreadable' }
    const { host, pid, start, token, createdAt } = value as Record<string, unknown>
    if (
      typeof pid !== 'number' ||
      typeof token !== 'string' ||
      typeof createdAt !== 'number' ||
      !Number.isFinite(createdAt)
    ) {
      return { kind: 'unreadable' }
    }
    return {
      kind: 'held',
      owner: {
        // a lock without a host cannot be checked: treat it as another host's (age decides)
        host: typeof host === 'string' ? host : '',
        pid,
        start: typeof start === 'string' ? start : null,
        token,
        createdAt,
      },
    }
  } catch {
    return { kind: 'unreadable' }
  }
}

/**
 * Move an abandoned lock aside, then make sure it was the one judged: if another process broke
 * it and took a fresh lock in between, put that fresh lock back (`link` fails when the path was
 * taken again meanwhile, which is also fine).
 */
async function breakLock(lockPath: string, seen: LockState): Promise<void> {
  const aside = sideFileName(lockPath, 'stale')
  try {
    await rename(lockPath, aside)
  } catch {
    return // someone else broke or released it first
  }
  const moved = await readLock(aside)
  const same =
    seen.kind === 'held'
      ? moved.kind === 'held' && moved.owner.token === seen.owner.token
      : moved.kind !== 'held'
  if (!same) await link(aside, lockPath).catch(() => {})
  await unlink(aside).catch(() => {})
  if (seen.kind === 'held') firstSeen.delete(`${lockPath}\0${seen.owner.token}`)
}

async function release(lockPath: string, token: string): Promise<void> {
  const state = await readLock(lockPath)
  if (state.kind === 'held' && state.owner.token === token) await unlink(lockPath).catch(() => {})
}
