import { randomUUID } from 'node:crypto'
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { errnoCode } from '@contextkit/core'
import { StateIoError, StateLockError } from './errors.js'

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up (with a {@link StateLockError}) after this long. Default `5000` ms. */
  timeoutMs?: number
  /**
   * A lock older than this is considered abandoned and broken, even when its process seems
   * alive. Default `30000` ms.
   */
  staleMs?: number
}

interface LockInfo {
  pid: number
  token: string
  createdAt: number
}

async function readLockInfo(lockPath: string): Promise<LockInfo | null> {
  try {
    const value: unknown = JSON.parse(await readFile(lockPath, 'utf8'))
    if (typeof value !== 'object' || value === null) return null
    const { pid, token, createdAt } = value as Record<string, unknown>
    if (typeof pid !== 'number' || typeof token !== 'string' || typeof createdAt !== 'number') {
      return null
    }
    return { pid, token, createdAt }
  } catch {
    return null
  }
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

/** Move an abandoned lock aside; if what we moved turns out to be a fresh lock, put it back. */
async function breakLock(lockPath: string, seen: LockInfo | null): Promise<void> {
  const aside = `${lockPath}.stale-${randomUUID()}`
  try {
    await rename(lockPath, aside)
  } catch {
    return // someone else broke or released it first
  }
  const moved = await readLockInfo(aside)
  const same = seen === null ? moved === null : moved?.token === seen.token
  if (!same) {
    try {
      await link(aside, lockPath)
    } catch {
      // the lock was taken again meanwhile; the owner we displaced keeps a valid rename order
    }
  }
  await unlink(aside).catch(() => {})
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<string> {
  // Real time on purpose: an injected test clock must not freeze the wait loop.
  const now = Date.now
  const timeoutMs = options.timeoutMs ?? 5000
  const staleMs = options.staleMs ?? 30_000
  const token = `${process.pid}-${randomUUID()}`
  const deadline = now() + timeoutMs
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, 'wx')
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, token, createdAt: now() }))
      } finally {
        await handle.close()
      }
      return token
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') {
        throw new StateIoError(`cannot create lock file ${lockPath}`, {
          recoverable: true,
          cause: error,
          details: { path: lockPath },
        })
      }
    }
    const info = await readLockInfo(lockPath)
    if (info) {
      if (!processAlive(info.pid) || now() - info.createdAt > staleMs) {
        await breakLock(lockPath, info)
        continue
      }
    } else {
      // Empty or half-written: its owner may be writing it right now. Judge by age only.
      const age = await stat(lockPath).then(
        (s) => now() - s.mtimeMs,
        () => 0,
      )
      if (age > staleMs) {
        await breakLock(lockPath, null)
        continue
      }
    }
    if (now() >= deadline) {
      throw new StateLockError(`timed out after ${timeoutMs} ms waiting for ${lockPath}`, {
        recoverable: true,
        details: { path: lockPath, holder: info?.pid },
      })
    }
    await sleep(Math.min(50, 2 + attempt) + Math.random() * 10)
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  const info = await readLockInfo(lockPath)
  if (info?.token === token) await unlink(lockPath).catch(() => {})
}

/**
 * Run `fn` while holding an exclusive lock file at `lockPath` (created with `O_CREAT | O_EXCL`).
 * A lock whose process is gone (same host) or older than `staleMs` is broken. The lock is
 * released when `fn` settles.
 *
 * @throws StateLockError when the lock cannot be taken within `timeoutMs`.
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const token = await acquire(lockPath, options)
  try {
    return await fn()
  } finally {
    await release(lockPath, token)
  }
}
