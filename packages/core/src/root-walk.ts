import { isAbsolute, resolve, sep } from 'node:path'
import {
  MAX_LINKS,
  openChildDir,
  openRoot,
  releaseDir,
  tooManyLinks,
  type UnsafeWriteError,
  unsafe,
  type WalkedDir,
} from './within-root-walk.js'

// Internal: the walk of reads that follow symbolic links inside the root (open-within-root.ts).

/** How a link's text is cut into components. */
const LINK_SEPARATORS = process.platform === 'win32' ? /[\\/]/ : '/'

/**
 * A walk for reads below `root`, one component at a time from its real path: every directory
 * opened as in {@link walkDirs} (on Linux by descriptor, relative to its parent, with
 * `O_NOFOLLOW`). With `follow`, a symbolic link on the way is read (`readlink`; the system
 * never follows it) and its target walked in its place, from the directory holding the link,
 * or from the root for an absolute target naming a place inside the root; a `..` above the root
 * or an absolute target elsewhere is refused (`leaves_root`) before anything outside is opened.
 * Without `follow`, a link is refused (`symlink`). The names walked are real directories, so
 * where the walk stands is always a real path below the root.
 */
export class RootWalk {
  /** The directory reached. */
  dir: WalkedDir
  /** Its components below the real root (real directories, no link among them). */
  names: string[] = []
  /** How many links were followed. */
  links = 0
  /** Links followed and names walked again (swapped back and forth): bounded. */
  #turns = 0
  readonly #root: string
  readonly #rel: string
  readonly #follow: boolean
  readonly #prefixes: string[]
  readonly #pending: string[]
  #lastAt: 'file' | 'directory' = 'directory'

  constructor(root: string, segments: readonly string[], rel: string, follow: boolean) {
    this.dir = openRoot(root)
    this.#root = root
    this.#rel = rel
    this.#follow = follow
    this.#pending = [...segments]
    this.#prefixes = [...new Set([this.dir.path, resolve(root)])]
  }

  /** Walk the directories up to the last component and return its name (not opened). */
  toLast(): string {
    for (;;) {
      const name = this.#pending.shift()
      if (name === undefined) {
        throw unsafe(this.#root, this.#rel, 'not_a_file', 'it is a directory', undefined, {
          kind: 'directory',
        })
      }
      if (name === '' || name === '.') continue
      if (name === '..') {
        if (this.names.length === 0) throw this.#leaves()
        this.#restart(this.names.slice(0, -1))
        continue
      }
      if (this.#pending.length === 0) return name
      const next = openChildDir(this.dir, name, this.#root, this.#rel, false, this.#follow)
      if ('link' in next) {
        this.follow(next.link, 'directory')
      } else {
        releaseDir(this.dir)
        this.dir = next
        this.names.push(name)
      }
    }
  }

  /**
   * The component just returned by {@link toLast} is a link whose text is `target` (`at` where
   * it stood): walk on to where it leads, or refuse when that is outside the root.
   */
  follow(target: string, at: 'file' | 'directory'): void {
    this.#count()
    this.links++
    this.#lastAt = at
    if (!isAbsolute(target)) {
      this.#pending.unshift(...target.split(LINK_SEPARATORS))
      return
    }
    const inside = this.#insideRoot(target)
    if (inside === null) throw this.#leaves()
    this.#restart(inside)
  }

  /** Walk to `name` again: it changed kind between the open that met it and the next look. */
  again(name: string): void {
    this.#count()
    this.#pending.unshift(name)
  }

  /** Close the directory held. */
  release(): void {
    releaseDir(this.dir)
  }

  #count(): void {
    if (++this.#turns > MAX_LINKS) throw tooManyLinks(this.#root, this.#rel)
  }

  #restart(head: readonly string[]): void {
    const held = this.dir
    this.dir = { fd: null, path: held.path }
    releaseDir(held)
    this.dir = openRoot(this.#root)
    this.names = []
    this.#pending.unshift(...head)
  }

  /** The components of absolute `target` below the root (either spelling of it), or `null`. */
  #insideRoot(target: string): string[] | null {
    for (const prefix of this.#prefixes) {
      if (target === prefix) return []
      const base = prefix.endsWith(sep) ? prefix : `${prefix}${sep}`
      if (target.startsWith(base)) return target.slice(base.length).split(LINK_SEPARATORS)
    }
    return null
  }

  #leaves(): UnsafeWriteError {
    return unsafe(
      this.#root,
      this.#rel,
      'leaves_root',
      'a symbolic link leads outside the root',
      undefined,
      { at: this.#lastAt },
    )
  }
}
