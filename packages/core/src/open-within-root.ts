import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { join } from 'node:path'
import { errnoCode } from './errno.js'
import { assertOptions, invalidArgument } from './errors.js'
import { RootWalk } from './root-walk.js'
import {
  checkHeld,
  childPath,
  isLinkErrno,
  type LinkText,
  NOFOLLOW,
  openError,
  readLink,
  recheckPathMode,
  segmentsOf,
  type Target,
} from './within-root-walk.js'

/** Options of {@link openWithinRoot}. */
export interface OpenWithinRootOptions {
  /**
   * Follow a symbolic link below the root when where it leads is inside the root. The link is
   * read, never followed by the system, and its target walked like the rest of the path (from
   * the real root, one directory at a time), so nothing outside the root is ever opened, not
   * even to look at it; a link leading outside is refused (`leaves_root`, with `at`: `file` when
   * the final name is the link, `directory` when a directory on the way is). For files the user
   * placed in a workspace (preloaded files, `read_file`). Default `false`: any symbolic link
   * below the root is refused (`symlink`), for the files contextkit writes itself.
   */
  followLinks?: boolean
}

/** A file {@link openWithinRoot} opened. */
export interface FileWithinRoot {
  /** The open handle, for reading; the caller closes it. */
  handle: FileHandle
  /** The absolute real path of the file (the root's real path joined with `relPath`). */
  path: string
  /**
   * Where the file is below the root, `/`-separated: the path asked for when no link was
   * followed, else where the links led.
   */
  relPath: string
  /** Whether a symbolic link was followed on the way (only with `followLinks`). */
  viaLink: boolean
}

const READ_FLAGS = constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0)

/**
 * Open the existing regular file `relPath` inside `root` for reading: the one confined open of
 * contextkit. The walk is the writers' ({@link appendWithinRoot}): `relPath` must pass core's
 * `inspectRelativePath`; from the root's real path each directory is opened without following
 * a symbolic link (on Linux by descriptor, relative to its parent, so a directory swapped for a
 * link at any moment cannot redirect it), and the file itself with `O_NOFOLLOW | O_NONBLOCK`
 * (a FIFO never blocks) and checked to be a regular file. With `followLinks`, links that stay
 * inside the root are followed by the same walk (see {@link OpenWithinRootOptions}). A file with
 * several hard links is accepted: reading one cannot change another. The caller closes the
 * handle.
 *
 * @throws UnsafeWriteError for a path that is not a clean relative path (`bad_path`), a symbolic
 *   link (`symlink`), one leading outside (`leaves_root`), a non-regular file (`not_a_file`,
 *   with its `kind`), a file under a file (`not_a_directory`), a path that moved while it was
 *   opened (`moved`, platforms without `/proc`).
 * @throws the file system's own error (`ENOENT` for a missing file or directory, …).
 */
export async function openWithinRoot(
  root: string,
  relPath: string,
  options: OpenWithinRootOptions = {},
): Promise<FileWithinRoot> {
  assertOptions(options, 'openWithinRoot')
  const follow = options.followLinks ?? false
  if (typeof follow !== 'boolean') {
    invalidArgument('openWithinRoot', 'options.followLinks', 'a boolean', follow)
  }
  const segments = segmentsOf(root, relPath)
  const rel = segments.join('/')
  const walk = new RootWalk(root, segments, rel, follow)
  try {
    for (;;) {
      const name = walk.toLast()
      const opened = await openLast({ root, rel, name, dir: walk.dir }, follow)
      if (opened === null) walk.again(name)
      else if ('link' in opened) walk.follow(opened.link, 'file')
      else {
        const relPath = [...walk.names, name].join('/')
        return { handle: opened, path: join(walk.dir.path, name), relPath, viaLink: walk.links > 0 }
      }
    }
  } finally {
    walk.release()
  }
}

/**
 * Open the last component of a walk: the handle of a regular file; with `follow`, the text of
 * a link there, or `null` when the link went away before it could be read (walk to it again).
 */
async function openLast(t: Target, follow: boolean): Promise<FileHandle | LinkText | null> {
  const at = childPath(t.dir, t.name)
  let handle: FileHandle
  try {
    handle = await open(at, READ_FLAGS)
  } catch (error) {
    if (!follow || !isLinkErrno(errnoCode(error))) throw openError(error, t)
    const link = readLink(at)
    return link === null ? null : { link }
  }
  try {
    recheckPathMode(t.dir, t.name, handle.fd, t.root, t.rel)
    checkHeld(await handle.stat(), t, false)
    return handle
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
}
