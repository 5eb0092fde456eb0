import {
  closeSync,
  constants,
  fstatSync,
  fsync,
  fsyncSync,
  ftruncate,
  ftruncateSync,
  lstatSync,
  openSync,
  readSync,
  type Stats,
  write,
  writeSync,
} from 'node:fs'
import { open, rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { errnoCode } from './errno.js'
import { invalidArgument } from './errors.js'
import { sideFileName } from './side-files.js'
import {
  checkHeld,
  childPath,
  NOFOLLOW,
  openError,
  recheckPathMode,
  releaseDir,
  segmentsOf,
  type Target,
  target,
  UnsafeWriteError,
  unsafe,
  walkDirs,
} from './within-root-walk.js'

export type { UnsafeWriteReason } from './within-root-walk.js'
export { UnsafeWriteError }

/** Options of {@link appendWithinRoot} and {@link replaceWithinRoot}. */
export interface WithinRootWriteOptions {
  /** `fsync` the file (and its directory when the file is new) before returning. Default `false` for appends, `true` for replaces. */
  fsync?: boolean
  /** Permission bits of a file created. Default `0o644`; a replaced file keeps its own. */
  mode?: number
}

/** What a write within the root did. */
export interface WithinRootWrite {
  /** Absolute path written: the real path of the root joined with the checked relative path. */
  path: string
  /** Bytes written, a leading newline included. */
  bytes: number
  /** Whether the file was created by this write. */
  created: boolean
}

const NONBLOCK = constants.O_NONBLOCK ?? 0
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | NOFOLLOW | NONBLOCK
const CREATE_FLAGS = APPEND_FLAGS | constants.O_CREAT | constants.O_EXCL
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW
const NEWLINE = 0x0a

/** `data` as bytes; a wrong `data` or `options` is a caller's bug: a `ValidationError`. */
function toBytes(data: unknown, options: unknown, fn: string): Buffer {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    invalidArgument(fn, 'options', 'an object', options)
  }
  if (typeof data === 'string') return Buffer.from(data, 'utf8')
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  return invalidArgument(fn, 'data', 'a string or a Uint8Array', data)
}

/** Open for appending (creating it), knowing whether this call created the file. */
function openAppendSync(t: Target, mode: number): { fd: number; created: boolean } {
  const at = childPath(t.dir, t.name)
  for (;;) {
    try {
      return { fd: openSync(at, APPEND_FLAGS), created: false }
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw openError(error, t)
    }
    try {
      return { fd: openSync(at, CREATE_FLAGS, mode), created: true }
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw openError(error, t)
    }
  }
}

/** `data` with a newline in front when the file's last byte is not one (a torn last line). */
function withFreshLine(data: Buffer, lastByte: number | undefined): Buffer {
  if (lastByte === undefined || lastByte === NEWLINE) return data
  return Buffer.concat([Buffer.from('\n'), data])
}

/**
 * Synchronous {@link appendWithinRoot}, for writers that must not interleave with the event
 * loop (a trace records each event before `record` returns).
 */
export function appendWithinRootSync(
  root: string,
  relPath: string,
  data: string | Uint8Array,
  options: WithinRootWriteOptions = {},
): WithinRootWrite {
  const bytes = toBytes(data, options, 'appendWithinRootSync')
  const t = target(root, relPath, true)
  try {
    const { fd, created } = openAppendSync(t, options.mode ?? 0o644)
    let size: number | undefined
    try {
      const plan = planAppend(t, fd, root, bytes)
      size = plan.size
      const out = plan.out
      for (let offset = 0; offset < out.length; ) offset += writeSync(fd, out, offset)
      if (options.fsync) fsyncSync(fd)
      if (options.fsync && created && t.dir.fd !== null) fsyncSync(t.dir.fd)
      return { path: join(t.dir.path, t.name), bytes: out.length, created }
    } catch (error) {
      if (size !== undefined) {
        try {
          ftruncateSync(fd, size)
        } catch {
          // the file keeps a torn tail; the next append starts on a fresh line
        }
      }
      throw error
    } finally {
      closeSync(fd)
    }
  } finally {
    releaseDir(t.dir)
  }
}

/**
 * Check the opened file (still the path walked, a regular file with one link) and plan the
 * append: the size to cut back to if the write fails, and the bytes to write (a newline first
 * when the last byte is not one). Nothing is written here, so a refusal needs no cut-back.
 */
function planAppend(
  t: Target,
  fd: number,
  root: string,
  bytes: Buffer,
): { size: number; out: Buffer } {
  recheckPathMode(t.dir, t.name, fd, root, t.rel)
  const st = fstatSync(fd)
  checkHeld(st, t, true)
  let last: number | undefined
  if (st.size > 0) {
    const one = Buffer.alloc(1)
    if (readSync(fd, one, 0, 1, st.size - 1) === 1) last = one[0]
  }
  return { size: st.size, out: withFreshLine(bytes, last) }
}

/**
 * Append `data` to the file `relPath` inside `root`, the one way contextkit appends to a file.
 *
 * - `relPath` must pass core's `inspectRelativePath` (no `..` past the root, no absolute or
 *   Windows-special paths). `root` must exist; its own path is trusted (resolved once).
 * - Every directory below the root is walked without following a symlink and created when
 *   missing; on Linux each is opened relative to its parent's descriptor (`/proc/self/fd`), so a
 *   directory swapped for a symlink mid-walk is refused, never followed. On platforms without
 *   `/proc` each component is `lstat`ed and the open re-checked (same device and inode).
 * - The file is opened with `O_NOFOLLOW`; it must be a regular file with one link (a hard link
 *   could be a file outside the root).
 * - The append starts on a fresh line: when the file's last byte is not `\n` (a torn line left
 *   by a crash or a failed write), a newline is written first. A write that fails is cut back,
 *   so the file never ends in a half-written `data`.
 *
 * @throws UnsafeWriteError for every refusal above; nothing is written.
 * @throws the file system's own error (`ENOSPC`, `EACCES`, …) for other failures.
 */
export async function appendWithinRoot(
  root: string,
  relPath: string,
  data: string | Uint8Array,
  options: WithinRootWriteOptions = {},
): Promise<WithinRootWrite> {
  const bytes = toBytes(data, options, 'appendWithinRoot')
  const t = target(root, relPath, true)
  try {
    const { fd, created } = openAppendSync(t, options.mode ?? 0o644)
    let size: number | undefined
    try {
      // the checks and the last byte are cheap: only the write and its fsync are awaited
      const plan = planAppend(t, fd, root, bytes)
      size = plan.size
      const out = plan.out
      for (let offset = 0; offset < out.length; ) {
        offset += (await fsp.write(fd, out, offset, out.length - offset)).bytesWritten
      }
      if (options.fsync) await fsp.fsync(fd)
      if (options.fsync && created && t.dir.fd !== null) await fsp.fsync(t.dir.fd)
      return { path: join(t.dir.path, t.name), bytes: out.length, created }
    } catch (error) {
      if (size !== undefined) await fsp.ftruncate(fd, size).catch(() => {})
      throw error
    } finally {
      closeSync(fd)
    }
  } finally {
    releaseDir(t.dir)
  }
}

/** The callback API on raw descriptors, as promises (`fs/promises` works on handles only). */
const fsp = {
  write: promisify(write) as (
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
  ) => Promise<{ bytesWritten: number }>,
  fsync: promisify(fsync),
  ftruncate: promisify(ftruncate),
}

/**
 * Make sure the directory `relDir` exists inside `root`, creating what is missing, through the
 * walk of {@link appendWithinRoot}; returns its absolute path. A component that is a symlink or
 * not a directory is refused with an {@link UnsafeWriteError}.
 */
export async function mkdirWithinRoot(root: string, relDir: string): Promise<string> {
  const segments = segmentsOf(root, relDir)
  const dir = walkDirs(root, segments, segments.join('/'), true)
  releaseDir(dir)
  return dir.path
}

/**
 * Remove the file `relPath` inside `root` through the walk of {@link appendWithinRoot}: a
 * symlinked directory on the way is refused, so a planted link cannot make this delete a file
 * outside; a symlink at the final name is removed itself (never its target). Returns `false`
 * when there was nothing to remove.
 *
 * @throws UnsafeWriteError for a refused path; the file system's own error otherwise.
 */
export async function unlinkWithinRoot(root: string, relPath: string): Promise<boolean> {
  let t: Target
  try {
    t = target(root, relPath, false)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false
    throw error
  }
  try {
    await unlink(childPath(t.dir, t.name))
    return true
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false
    throw error
  } finally {
    releaseDir(t.dir)
  }
}

/** The target's stats when it exists (a regular file with one link), `null` when it does not. */
function checkReplaceable(t: Target): Stats | null {
  let st: Stats
  try {
    st = lstatSync(childPath(t.dir, t.name))
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw error
  }
  if (st.isSymbolicLink()) throw unsafe(t.root, t.rel, 'symlink', 'it is a symlink')
  checkHeld(st, t, true)
  return st
}

/**
 * Replace (or create) the file `relPath` inside `root` with `data`, atomically: a temp file is
 * created beside it with `O_CREAT | O_EXCL | O_NOFOLLOW`, written, `fsync`ed, then renamed over
 * the target, and the directory is `fsync`ed. The directories are walked as in
 * {@link appendWithinRoot}. A target that is a symlink, not a regular file, or has more than one
 * hard link is refused (checked before writing and again just before the rename).
 *
 * @throws UnsafeWriteError for every refusal; nothing is written and no temp file is left.
 * @throws the file system's own error for other failures (the temp file is removed).
 */
export async function replaceWithinRoot(
  root: string,
  relPath: string,
  data: string | Uint8Array,
  options: WithinRootWriteOptions = {},
): Promise<WithinRootWrite> {
  const bytes = toBytes(data, options, 'replaceWithinRoot')
  const t = target(root, relPath, true)
  // named as core's side files, so sweepAbandonedSideFiles can clear one a killed writer left
  const tempName = sideFileName(t.name, 'tmp')
  const temp: Target = { ...t, name: tempName }
  let tempMade = false
  try {
    const existing = checkReplaceable(t)
    const created = existing === null
    const mode = options.mode ?? (existing ? existing.mode & 0o7777 : 0o644)
    const handle = await open(childPath(t.dir, tempName), TEMP_FLAGS, mode).catch(
      (error: unknown) => {
        throw openError(error, temp)
      },
    )
    tempMade = true
    try {
      recheckPathMode(t.dir, tempName, handle.fd, root, t.rel)
      await handle.writeFile(bytes)
      if (options.fsync ?? true) await handle.sync()
    } finally {
      await handle.close().catch(() => {})
    }
    checkReplaceable(t)
    await rename(childPath(t.dir, tempName), childPath(t.dir, t.name))
    tempMade = false
    if ((options.fsync ?? true) && t.dir.fd !== null) {
      try {
        fsyncSync(t.dir.fd)
      } catch {
        // some file systems cannot fsync a directory; the rename is still atomic
      }
    }
    return { path: join(t.dir.path, t.name), bytes: bytes.length, created }
  } finally {
    if (tempMade) await unlink(childPath(t.dir, tempName)).catch(() => {})
    releaseDir(t.dir)
  }
}
