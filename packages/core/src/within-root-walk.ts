import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
} from 'node:fs'
import { join } from 'node:path'
import { errnoCode } from './errno.js'
import { ContextkitError, invalidArgument } from './errors.js'
import { inspectRelativePath } from './relative-path.js'

// Internal: the directory walk behind within-root.ts. One walk for every writer, sync because
// each step is a metadata call on a path we hold (the data writes themselves are async there).

/** Why {@link UnsafeWriteError} refused a path. */
export type UnsafeWriteReason =
  | 'bad_path'
  | 'symlink'
  | 'hard_link'
  | 'not_a_directory'
  | 'not_a_file'
  | 'moved'

/**
 * A write (or a read through the same walk) that would leave its root, or land on a file that
 * could be another one: a symlink, a hard link, a path that is not a clean relative path, a
 * directory that changed while it was walked. Nothing was written. `details` holds `root`,
 * `path`, `reason` ({@link UnsafeWriteReason}) and `why` (the message's explanation alone).
 */
export class UnsafeWriteError extends ContextkitError {
  /** The `code` of every error of this class: `unsafe_write`. */
  static override readonly code: string = 'unsafe_write'
}

/** `O_NOFOLLOW` and `O_DIRECTORY` where the platform has them (not on Windows). */
export const NOFOLLOW: number = constants.O_NOFOLLOW ?? 0
const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | NOFOLLOW

/**
 * A directory reached by the walk: held by `fd` when `/proc/self/fd` works (Linux), so every
 * name below it is resolved from that very directory; `fd` is `null` in path mode.
 */
export interface WalkedDir {
  fd: number | null
  /** Absolute path walked (real root + checked components), for messages and path mode. */
  path: string
}

/** Where `name` inside `dir` is opened: through the held descriptor, or by path. */
export function childPath(dir: WalkedDir, name: string): string {
  return dir.fd === null ? join(dir.path, name) : `/proc/self/fd/${dir.fd}/${name}`
}

/** Close the descriptor of a walked directory (path mode holds none). */
export function releaseDir(dir: WalkedDir): void {
  if (dir.fd !== null) closeSync(dir.fd)
}

export function unsafe(
  root: string,
  path: string,
  reason: UnsafeWriteReason,
  why: string,
  cause?: unknown,
): UnsafeWriteError {
  return new UnsafeWriteError(`Refused "${path}" under ${root}: ${why}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { root, path, reason, why },
  })
}

/** The checked components of `relPath`, or an {@link UnsafeWriteError}. */
export function segmentsOf(root: unknown, relPath: unknown): string[] {
  if (typeof root !== 'string' || root.length === 0) {
    invalidArgument('within root', 'root', 'a non-empty directory path', root)
  }
  const checked = inspectRelativePath(relPath)
  if (!checked.ok) throw unsafe(root, String(relPath), 'bad_path', checked.message)
  return checked.segments
}

let procWorks: boolean | undefined

/** Open the root (its own path is trusted); a missing root is the file system's `ENOENT`. */
function openRoot(root: string): WalkedDir {
  const real = realpathSync(root)
  if (process.platform === 'win32') return { fd: null, path: real }
  const fd = openSync(real, DIR_FLAGS)
  if (procWorks === undefined) {
    try {
      procWorks = lstatSync(`/proc/self/fd/${fd}/.`).ino === fstatSync(fd).ino
    } catch {
      procWorks = false
    }
  }
  if (procWorks) return { fd, path: real }
  closeSync(fd)
  return { fd: null, path: real }
}

/**
 * Walk from the real path of `root` down `segments` without following a symlink, creating
 * missing directories when `create`. Linux: each directory is opened with
 * `O_DIRECTORY | O_NOFOLLOW` relative to the descriptor of its parent (`/proc/self/fd/N/name`),
 * so swapping a directory for a symlink at any moment cannot redirect the walk. Elsewhere (path
 * mode): `lstat` each component and refuse symlinks; the final open is re-checked by the caller
 * ({@link recheckPathMode}).
 */
export function walkDirs(
  root: string,
  segments: readonly string[],
  rel: string,
  create: boolean,
): WalkedDir {
  let dir = openRoot(root)
  try {
    for (const segment of segments) {
      const next = openChildDir(dir, segment, root, rel, create)
      releaseDir(dir)
      dir = next
    }
    return dir
  } catch (error) {
    releaseDir(dir)
    throw error
  }
}

function openChildDir(
  dir: WalkedDir,
  name: string,
  root: string,
  rel: string,
  create: boolean,
): WalkedDir {
  const full = join(dir.path, name)
  const at = childPath(dir, name)
  for (let attempt = 0; ; attempt++) {
    try {
      if (dir.fd === null) {
        const st = lstatSync(full)
        if (st.isSymbolicLink()) throw unsafe(root, rel, 'symlink', `"${name}" is a symlink`)
        if (!st.isDirectory())
          throw unsafe(root, rel, 'not_a_directory', `"${name}" is not a directory`)
        return { fd: null, path: full }
      }
      return { fd: openSync(at, DIR_FLAGS), path: full }
    } catch (error) {
      if (UnsafeWriteError.isInstance(error)) throw error
      const code = errnoCode(error)
      if (code === 'ENOENT' && create && attempt === 0) {
        try {
          mkdirSync(at)
        } catch (mkdirError) {
          if (errnoCode(mkdirError) !== 'EEXIST') throw mkdirError
        }
        continue
      }
      if (code === 'ENOTDIR' || code === 'ELOOP' || code === 'EMLINK') {
        const link = lstatOrNull(at)?.isSymbolicLink() ?? code !== 'ENOTDIR'
        throw link
          ? unsafe(root, rel, 'symlink', `"${name}" is a symlink`, error)
          : unsafe(root, rel, 'not_a_directory', `"${name}" is not a directory`, error)
      }
      throw error
    }
  }
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path)
  } catch {
    return null
  }
}

/**
 * Path mode's re-check after the final open: the file held by `fd` must be the one at the
 * walked path (same device and inode as `lstat`), and the walked directory must still be its
 * own real path (no component turned into a symlink meanwhile). A swap that happens and is
 * undone between the open and this check is not seen: path mode is for platforms without
 * `/proc` (macOS, Windows), where Node offers no `openat`.
 */
export function recheckPathMode(
  dir: WalkedDir,
  name: string,
  fd: number,
  root: string,
  rel: string,
): void {
  if (dir.fd !== null) return
  const held = fstatSync(fd)
  const there = lstatOrNull(join(dir.path, name))
  let real: string | null = null
  try {
    real = realpathSync(dir.path)
  } catch {
    real = null
  }
  if (!there || there.dev !== held.dev || there.ino !== held.ino || real !== dir.path) {
    throw unsafe(root, rel, 'moved', 'the path changed while it was opened')
  }
}
