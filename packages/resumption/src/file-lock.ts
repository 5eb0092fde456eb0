import { randomUUID } from 'node:crypto'
import { link, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { assertOptions, assertString, errnoCode, invalidArgument } from '@contextkit/core'
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

/**
 * Age after which a lock file whose content cannot be read (empty, truncated, not our JSON) is
 * broken. Locks are created whole (see {@link withFileLock}), so such a file is never one being
 * written right now; it was left by a crash of an older writer or damaged on disk. The grace
 * covers a writer of an older version that may still be filling its lock in.
 */
export const UNREADABLE_LOCK_GRACE_MS = 2000

interface LockInfo {
  pid: number
  token: string
  createdAt: number
}

/** What is at the lock path: nothing, an unreadable file, or a lock with its owner. */
type LockState = { kind: 'missing' } | { kind: 'unreadable' } | { kind: 'held'; info: LockInfo }

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
    const { pid, token, createdAt } = value as Record<string, unknown>
    if (typeof pid !== 'number' || typeof token !== 'string' || typeof createdAt !== 'number') {
      return { kind: 'unreadable' }
    }
    return { kind: 'held', info: { pid, token, createdAt } }
  } catch {
    return { kind: 'unreadable' }
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

/** Names of the side files of a lock: `<lock>.tmp-<pid>-<id>` and `<lock>.stale-<pid>-<id>`. */
function sideFile(lockPath: string, kind: 'tmp' | 'stale'): string {
  return `${lockPath}.${kind}-${process.pid}-${randomUUID().slice(0, 8)}`
}

/** Move an abandoned lock aside; if what we moved turns out to be a fresh lock, put it back. */
async function breakLock(lockPath: string, seen: LockState): Promise<void> {
  const aside = sideFile(lockPath, 'stale')
  try {
    await rename(lockPath, aside)
  } catch {
    return // someone else broke or released it first
  }
  const moved = await readLock(aside)
  const same =
    seen.kind === 'held'
      ? moved.kind === 'held' && moved.info.token === seen.info.token
      : moved.kind !== 'held'
  if (!same) {
    try {
      await link(aside, lockPath)
    } catch {
      // the lock was taken again meanwhile; the owner we displaced keeps a valid rename order
    }
  }
  await unlink(aside).catch(() => {})
}

/**
 * Create the lock in one step: the owner is written to a temp file first, which is then
 * hard-linked to the lock path (`link` fails with `EEXIST` when the lock is held). A writer
 * killed at any point leaves either no lock or a complete one, never an empty lock file.
 * Returns `false` when the lock is held by someone else.
 */
async function tryCreate(lockPath: string, owner: LockInfo): Promise<boolean> {
  const temp = sideFile(lockPath, 'tmp')
  try {
    const handle = await open(temp, 'wx')
    try {
      await handle.writeFile(JSON.stringify(owner))
    } finally {
      await handle.close()
    }
    await link(temp, lockPath)
    return true
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false
    throw new StateIoError(`cannot create lock file ${lockPath}`, {
      recoverable: true,
      cause: error,
      details: { path: lockPath },
    })
  } finally {
    await unlink(temp).catch(() => {})
  }
}

/**
 * Remove the side files (`<file>.tmp-<pid>-<id>`, `<file>.stale-<pid>-<id>`) of each of `files`
 * that writers killed mid-way left behind: temp files written before a `link` or `rename`, locks
 * moved aside before their deletion. A side file is abandoned when its process is gone or it is
 * older than `staleMs`. Call it while holding the lock that guards those files; never throws.
 */
export async function sweepAbandonedSideFiles(
  files: readonly string[],
  staleMs: number,
): Promise<void> {
  const pattern = /^(?:tmp|stale)-(\d+)-[0-9a-f]{8}$/
  const byDir = new Map<string, string[]>()
  for (const file of files) {
    const prefixes = byDir.get(dirname(file)) ?? []
    prefixes.push(`${basename(file)}.`)
    byDir.set(dirname(file), prefixes)
  }
  for (const [dir, prefixes] of byDir) {
    let names: string[]
    try {
      names = await readdir(dir)
    } catch {
      continue
    }
    for (const name of names) {
      let match: RegExpExecArray | null = null
      for (const p of prefixes)
        if (!match && name.startsWith(p)) match = pattern.exec(name.slice(p.length))
      if (!match) continue
      const file = join(dir, name)
      const abandoned =
        !processAlive(Number(match[1])) ||
        (await stat(file).then(
          (s) => Date.now() - s.mtimeMs > staleMs,
          () => false,
        ))
      if (abandoned) await unlink(file).catch(() => {})
    }
  }
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<string> {
  // Real time on purpose: an injected test clock must not freeze the wait loop.
  const now = Date.now
  const timeoutMs = options.timeoutMs ?? 5000
  const staleMs = options.staleMs ?? 30_000
  const token = `${process.pid}-${randomUUID()}`
  const deadline = now() + timeoutMs
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(lockPath, { pid: process.pid, token, createdAt: now() })) {
      await sweepAbandonedSideFiles([lockPath], staleMs)
      return token
    }
    const seen = await readLock(lockPath)
    // 'missing': released in between (or a dangling link sits there): wait a moment, try again.
    if (seen.kind === 'held') {
      if (!processAlive(seen.info.pid) || now() - seen.info.createdAt > staleMs) {
        await breakLock(lockPath, seen)
        continue
      }
    } else if (seen.kind === 'unreadable') {
      // Not one being written (locks appear whole), so judge it by its age.
      const age = await stat(lockPath).then(
        (s) => now() - s.mtimeMs,
        () => 0,
      )
      if (age > Math.min(UNREADABLE_LOCK_GRACE_MS, staleMs)) {
        await breakLock(lockPath, seen)
        continue
      }
    }
    if (now() >= deadline) {
      throw new StateLockError(`timed out after ${timeoutMs} ms waiting for ${lockPath}`, {
        recoverable: true,
        details: { path: lockPath, holder: seen.kind === 'held' ? seen.info.pid : undefined },
      })
    }
    await sleep(Math.min(50, 2 + attempt) + Math.random() * 10)
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  const state = await readLock(lockPath)
  if (state.kind === 'held' && state.info.token === token) await unlink(lockPath).catch(() => {})
}

/**
 * Run `fn` while holding an exclusive lock file at `lockPath`. The lock appears atomically with
 * its owner inside (temp file, then `link`), so a writer killed at any moment never leaves an
 * empty lock behind. A lock whose process is gone (same host) or older than `staleMs` is broken;
 * a lock file that cannot be read is broken once it is {@link UNREADABLE_LOCK_GRACE_MS} old.
 * The lock is released when `fn` settles.
 *
 * @throws StateLockError when the lock cannot be taken within `timeoutMs`.
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  assertString(lockPath, 'withFileLock', 'lockPath')
  if (typeof fn !== 'function') invalidArgument('withFileLock', 'fn', 'a function', fn)
  assertOptions(options, 'withFileLock')
  const token = await acquire(lockPath, options)
  try {
    return await fn()
  } finally {
    await release(lockPath, token)
  }
}
