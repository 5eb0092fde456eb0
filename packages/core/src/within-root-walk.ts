import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from 'node:fs'
import { join } from 'node:path'
import { errnoCode } from './errno.js'
import { ContextkitError, invalidArgument } from './errors.js'
import { inspectRelativePath } from './relative-path.js'

// Internal: the directory walk behind within-root.ts and open-within-root.ts. One walk for every
// writer and reader, sync because each step is a metadata call on a path we hold (the data reads
// and writes themselves are async there).

/** Why {@link UnsafeWriteError} refused a path. */
export type UnsafeWriteReason =
  | 'bad_path'
  | 'symlink'
  | 'hard_link'
  | 'not_a_directory'
  | 'not_a_file'
  | 'moved'
  | 'leaves_root'

/**
 * A write (or a read through the same walk) that would leave its root, or land on a file that
 * could be another one: a symlink, a hard link, a path that is not a clean relative path, a
 * directory that changed while it was walked, a symlink leading outside the root (a read that
 * follows links: `leaves_root`). Nothing was written. `details` holds `root`, `path`, `reason`
 * ({@link UnsafeWriteReason}) and `why` (the message's explanation alone); a `not_a_file`
 * refusal adds `kind` (`directory`, `fifo`, `socket`, `character_device`, `block_device`,
 * `other`), a `leaves_root` one `at` (`file`: the final name is the link; `directory`: a
 * directory on the way is).
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

/** The refusal of `path` under `root`, for `reason`; `extra` adds to its details. */
export function unsafe(
  root: string,
  path: string,
  reason: UnsafeWriteReason,
  why: string,
  cause?: unknown,
  extra: Record<string, unknown> = {},
): UnsafeWriteError {
  return new UnsafeWriteError(`Refused "${path}" under ${root}: ${why}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { root, path, reason, why, ...extra },
  })
}

/** What kind of entry `st` is, for a `not_a_file` refusal's `kind`. */
export function entryKind(
  st: Pick<Stats, 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>,
): string {
  if (st.isDirectory()) return 'directory'
  if (st.isFIFO()) return 'fifo'
  if (st.isSocket()) return 'socket'
  if (st.isCharacterDevice()) return 'character_device'
  if (st.isBlockDevice()) return 'block_device'
  return 'other'
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
export function openRoot(root: string): WalkedDir {
  const real = realpathSync.native(root)
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
      // without `follow` a link is refused, never returned
      if ('link' in next) throw unsafe(root, rel, 'symlink', `"${segment}" is a symlink`)
      releaseDir(dir)
      dir = next
    }
    return dir
  } catch (error) {
    releaseDir(dir)
    throw error
  }
}

/** A directory entry that is a symbolic link, met by a walk that follows links: its text. */
export interface LinkText {
  link: string
}

/**
 * The text of the symbolic link at `path`, or `null` when it is no longer a link (swapped back
 * between the open that met it and this read: the caller tries again).
 */
export function readLink(path: string): string | null {
  try {
    return readlinkSync(path)
  } catch (error) {
    if (errnoCode(error) === 'EINVAL') return null
    throw error
  }
}

/**
 * Open directory `name` inside `dir` without following a symbolic link; with `follow`, a link
 * there is read and its text returned instead (the caller walks to where it leads).
 */
export function openChildDir(
  dir: WalkedDir,
  name: string,
  root: string,
  rel: string,
  create: boolean,
  follow = false,
): WalkedDir | LinkText {
  const full = join(dir.path, name)
  const at = childPath(dir, name)
  for (let attempt = 0; attempt <= MAX_LINKS; attempt++) {
    try {
      if (dir.fd === null) {
        const st = lstatSync(full)
        if (st.isSymbolicLink()) {
          const link = follow ? readLink(full) : null
          if (link !== null) return { link }
          if (follow) continue
          throw unsafe(root, rel, 'symlink', `"${name}" is a symlink`)
        }
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
        const isLink = lstatOrNull(at)?.isSymbolicLink() ?? code !== 'ENOTDIR'
        const link = isLink && follow ? readLink(at) : null
        if (link !== null) return { link }
        if (isLink && follow) continue
        throw isLink
          ? unsafe(root, rel, 'symlink', `"${name}" is a symlink`, error)
          : unsafe(root, rel, 'not_a_directory', `"${name}" is not a directory`, error)
      }
      throw error
    }
  }
  throw tooManyLinks(root, rel)
}

/** How many symbolic links one walk follows at most (Linux's own limit). */
export const MAX_LINKS = 40

export function tooManyLinks(root: string, rel: string): UnsafeWriteError {
  return unsafe(
    root,
    rel,
    'symlink',
    'too many levels of symbolic links (or a link swapped back and forth)',
  )
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

/** A file below a root, its directory walked and held. */
export interface Target {
  root: string
  rel: string
  name: string
  dir: WalkedDir
}

/** Walk to the directory of `relPath` (creating what is missing when `create`). */
export function target(root: string, relPath: string, create: boolean): Target {
  const segments = segmentsOf(root, relPath)
  const rel = segments.join('/')
  const dir = walkDirs(root, segments.slice(0, -1), rel, create)
  return { root, rel, name: segments.at(-1) as string, dir }
}

/**
 * Refuse what the final open reached unless it is a regular file (with one name, for a write:
 * a hard link could be a file outside).
 */
export function checkHeld(st: Stats, t: Target, write: boolean): void {
  if (!st.isFile()) {
    throw unsafe(t.root, t.rel, 'not_a_file', 'it is not a regular file', undefined, {
      kind: entryKind(st),
    })
  }
  if (write && st.nlink > 1) {
    throw unsafe(
      t.root,
      t.rel,
      'hard_link',
      `it has ${st.nlink} hard links (it may be a file outside)`,
    )
  }
}

/** Whether an open with `O_NOFOLLOW` failed because the name is a symbolic link. */
export function isLinkErrno(code: string | undefined): boolean {
  return code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE'
}

/** A failed final open as a refusal (a symlink, not a regular file), or the error itself. */
export function openError(error: unknown, t: Target): unknown {
  const code = errnoCode(error)
  if (isLinkErrno(code)) return unsafe(t.root, t.rel, 'symlink', 'it is a symlink', error)
  if (code === 'ENXIO' || code === 'EISDIR' || code === 'EOPNOTSUPP') {
    const st = lstatOrNull(childPath(t.dir, t.name))
    const kind = st ? entryKind(st) : code === 'EISDIR' ? 'directory' : 'other'
    return unsafe(t.root, t.rel, 'not_a_file', 'it is not a regular file', error, { kind })
  }
  return error
}
