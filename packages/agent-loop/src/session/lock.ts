import { randomBytes, randomUUID } from 'node:crypto'
import { link, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { errnoCode, SessionIoError, SessionLockError } from './errors.js'

/** How long to wait for a session lock and when to call one abandoned. */
export interface FileLockOptions {
  /** Give up with a {@link SessionLockError} after this long. */
  timeoutMs: number
  /** A lock older than this is abandoned, whoever holds it. */
  staleMs: number
}

/** What a lock file holds: who took it, and when. */
interface LockInfo {
  pid: number
  host: string
  token: string
  createdAt: number
}

const HOST = hostname()

/** In-process queue per lock path, so writers of one process wait in line instead of polling. */
const queues = new Map<string, Promise<unknown>>()

/**
 * Run `fn` holding the lock file `lockPath` (created with `O_CREAT | O_EXCL`, so exactly one
 * process holds it). Callers in this process queue per path first; other processes retry with a
 * short backoff. A lock is broken when its holder is a dead process on this host, or when it is
 * older than `staleMs` (a holder on another host, a reused pid). The lock is released when `fn`
 * settles.
 *
 * @throws SessionLockError when the lock cannot be taken within `timeoutMs`.
 * @throws SessionIoError when the lock file cannot be created (missing directory, permissions).
 */
export function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: FileLockOptions,
): Promise<T> {
  const previous = queues.get(lockPath) ?? Promise.resolve()
  const run = previous.then(
    () => locked(lockPath, fn, options),
    () => locked(lockPath, fn, options),
  )
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

async function locked<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions) {
  const token = await acquire(lockPath, options)
  try {
    return await fn()
  } finally {
    await release(lockPath, token)
  }
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<string> {
  const token = `${process.pid}-${randomUUID()}`
  const deadline = Date.now() + options.timeoutMs
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(lockPath, token)) return token
    const info = await readLockInfo(lockPath)
    if (await isAbandoned(lockPath, info, options.staleMs)) {
      await breakLock(lockPath, info)
      continue
    }
    if (Date.now() >= deadline) {
      throw new SessionLockError(
        `timed out after ${options.timeoutMs} ms waiting for the session lock ${lockPath}`,
        { details: { path: lockPath, holderPid: info?.pid, holderHost: info?.host } },
      )
    }
    await sleep(Math.min(50, 1 + attempt * 2) + Math.random() * 5)
  }
}

/**
 * Create the lock file holding our token; `false` when it already exists. The content is written
 * to a private file first and hard-linked into place, so a lock file never exists without its
 * owner's pid (a writer killed in between would leave an empty lock that only age could break).
 * Where hard links are not supported, falls back to an exclusive create followed by the write.
 */
async function tryCreate(lockPath: string, token: string): Promise<boolean> {
  const info: LockInfo = { pid: process.pid, host: HOST, token, createdAt: Date.now() }
  const body = JSON.stringify(info)
  const temp = `${lockPath}.${randomBytes(6).toString('hex')}`
  try {
    await writeFile(temp, body, { flag: 'wx' })
  } catch (error) {
    throw lockIoError(lockPath, error)
  }
  try {
    await link(temp, lockPath)
    return true
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'EEXIST') return false
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS')
      throw lockIoError(lockPath, error)
  } finally {
    await unlink(temp).catch(() => {})
  }
  try {
    await writeFile(lockPath, body, { flag: 'wx' })
    return true
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false
    throw lockIoError(lockPath, error)
  }
}

function lockIoError(lockPath: string, cause: unknown): SessionIoError {
  return new SessionIoError(
    `cannot create the session lock ${lockPath}: ${errnoCode(cause) ?? cause}`,
    {
      cause,
      details: { path: lockPath, op: 'lock', errno: errnoCode(cause) },
    },
  )
}

async function readLockInfo(lockPath: string): Promise<LockInfo | null> {
  try {
    const value: unknown = JSON.parse(await readFile(lockPath, 'utf8'))
    if (typeof value !== 'object' || value === null) return null
    const { pid, host, token, createdAt } = value as Record<string, unknown>
    if (
      typeof pid !== 'number' ||
      typeof host !== 'string' ||
      typeof token !== 'string' ||
      typeof createdAt !== 'number'
    ) {
      return null
    }
    return { pid, host, token, createdAt }
  } catch {
    return null
  }
}

async function isAbandoned(
  lockPath: string,
  info: LockInfo | null,
  staleMs: number,
): Promise<boolean> {
  if (info) {
    if (info.host === HOST && !processAlive(info.pid)) return true
    return Date.now() - info.createdAt > staleMs
  }
  // Empty or half-written: its owner may be writing it right now. Judge by the file's age only.
  const age = await stat(lockPath).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  )
  return age > staleMs
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errnoCode(error) === 'EPERM'
  }
}

/**
 * Move an abandoned lock aside, then make sure it was the one we judged: if another process
 * broke it and took a fresh lock in between, put that fresh lock back (`link` fails when the
 * path was taken again meanwhile, which is also fine).
 */
async function breakLock(lockPath: string, seen: LockInfo | null): Promise<void> {
  const aside = `${lockPath}.stale-${randomBytes(6).toString('hex')}`
  try {
    await rename(lockPath, aside)
  } catch {
    return // someone else broke or released it first
  }
  const moved = await readLockInfo(aside)
  const same = seen === null ? moved === null : moved?.token === seen.token
  if (!same) await link(aside, lockPath).catch(() => {})
  await unlink(aside).catch(() => {})
}

async function release(lockPath: string, token: string): Promise<void> {
  const info = await readLockInfo(lockPath)
  if (info?.token === token) await unlink(lockPath).catch(() => {})
}
