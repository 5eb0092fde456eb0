import {
  createFileReadCache,
  type FileReadCache,
  type FileStamp,
  statStamp,
} from '@contextkit/core/node'
import type { FileText } from './read-within-root.js'

/** A file as read, and the line limit it was cut with. */
interface Entry {
  file: FileText
  maxLineLength: number
}

/** Directories whose listings are kept at most (oldest out first). */
const MAX_LISTINGS = 64

/** What a {@link ReadCache} keeps per cached file for its callers (a rendered section, a count). */
type Derived = Map<string, unknown>

/**
 * What the preload middleware keeps between runs, over core's stamp-checked `FileReadCache`:
 * the files read (by the absolute name they were opened at, checked with `lstat`, so a name that
 * has become a symlink misses), the directory listings, and what callers derived from a read.
 * A file is kept only when it was read at its own name, no symlink on the way: while `lstat`
 * shows the very inode read, its bytes are the ones checked to be inside the root, off the deny
 * list and a regular file. @internal
 */
export class ReadCache {
  readonly #files: FileReadCache<Entry>
  readonly #listings: FileReadCache<unknown>
  readonly #derived = new WeakMap<FileText, Derived>()

  /**
   * At most `maxEntries` files (default 256) of `maxChars` characters together (default 16 Mi);
   * `racyMs` (default core's `FILE_STAMP_RACY_MS`) is for tests.
   */
  constructor(limits: { maxEntries?: number; maxChars?: number; racyMs?: number } = {}) {
    const racy = limits.racyMs === undefined ? {} : { racyMs: limits.racyMs }
    this.#files = createFileReadCache({
      maxEntries: limits.maxEntries ?? 256,
      maxWeight: limits.maxChars ?? 16 * 1024 * 1024,
      followLinks: false,
      ...racy,
    })
    this.#listings = createFileReadCache({ maxEntries: MAX_LISTINGS, ...racy })
  }

  /** The cached read of `name`, if `name` still names the same unchanged regular file. */
  lookup(name: string, maxLineLength: number, maxBytes: number): FileText | undefined {
    const accept = (e: Entry) => e.maxLineLength === maxLineLength && e.file.bytes <= maxBytes
    return this.#files.lookup(name, { accept })?.file
  }

  /**
   * Keep the read of `name`: `stamp` is the stamp of the handle read, taken before the read, and
   * `startedMs` the clock before it (a racy stamp is not kept).
   */
  store(name: string, maxLineLength: number, stamp: FileStamp, file: FileText, startedMs: number) {
    this.#files.store(name, stamp, { file, maxLineLength }, startedMs, file.text.length)
  }

  /**
   * A value computed from `file` once (a rendered section, a token count): `make()` the first
   * time `key` is asked of this very read, the same value after while the file is unchanged.
   */
  derive<T>(file: FileText, key: string, make: () => T): T {
    let derived = this.#derived.get(file)
    if (derived === undefined) {
      derived = new Map()
      this.#derived.set(file, derived)
    }
    if (derived.has(key)) return derived.get(key) as T
    const value = make()
    derived.set(key, value)
    return value
  }

  /**
   * What `list()` made of directory `dir` (its names), made again only when a `stat` of `dir`
   * no longer shows the very directory listed, unchanged: creating, removing or renaming an
   * entry moves a directory's modification and change times. A directory changed within the
   * racy window of the listing is listed again next time.
   */
  async listing<T>(dir: string, list: () => Promise<T>): Promise<T> {
    const now = statStamp(dir)
    const known = this.#listings.lookup(dir, { stamp: now ?? null })
    if (known !== undefined) return known as T
    const startedMs = Date.now()
    const value = await list()
    if (now?.kind === 'directory') this.#listings.store(dir, now, value, startedMs)
    return value
  }
}
