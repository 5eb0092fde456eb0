import {
  FILE_STAMP_RACY_MS,
  type FileStamp,
  sameFileStamp,
  stampIsRacy,
  statStamp,
} from '@contextkit/core/node'
import type { FileText } from './read-within-root.js'

interface Entry {
  file: FileText
  maxLineLength: number
  /** The stamp of the handle read (core's `FileStamp`). */
  stamp: FileStamp
}

/** A directory listing, and the stamp of the directory taken before it was listed. */
interface Listing {
  value: unknown
  stamp: FileStamp
}

/** Directories whose listings are kept at most (oldest out first). */
const MAX_LISTINGS = 64

/** What a {@link ReadCache} keeps per cached file for its callers (a rendered section, a count). */
type Derived = Map<string, unknown>

/**
 * Files read before, by the absolute name they were opened at, for a middleware that reads the
 * same files on every run. A cached file is reused while `lstat` of the name shows the very
 * inode it was read from (device, inode, size, modification and change times to the
 * nanosecond), so an unchanged file costs one `lstat` instead of open, `fstat`, `readlink`, read,
 * decode and close. The inode was checked to be inside the root, off the deny list and a regular
 * file when it was read; while it is unchanged its bytes are the ones checked. Bounded: the
 * least recently used entries go first. @internal
 */
export class ReadCache {
  readonly #entries = new Map<string, Entry>()
  readonly #derived = new WeakMap<FileText, Derived>()
  readonly #listings = new Map<string, Listing>()
  readonly #maxEntries: number
  readonly #maxChars: number
  readonly #racyMs: number
  #chars = 0

  /**
   * At most `maxEntries` files (default 256) of `maxChars` characters together (default 16 Mi);
   * `racyMs` (default core's `FILE_STAMP_RACY_MS`) is for tests.
   */
  constructor(limits: { maxEntries?: number; maxChars?: number; racyMs?: number } = {}) {
    this.#maxEntries = limits.maxEntries ?? 256
    this.#maxChars = limits.maxChars ?? 16 * 1024 * 1024
    this.#racyMs = limits.racyMs ?? FILE_STAMP_RACY_MS
  }

  /** The cached read of `name`, if `name` still names the same unchanged regular file. */
  async lookup(
    name: string,
    maxLineLength: number,
    maxBytes: number,
  ): Promise<FileText | undefined> {
    const entry = this.#entries.get(name)
    if (entry === undefined) return undefined
    if (entry.maxLineLength !== maxLineLength || entry.file.bytes > maxBytes) return undefined
    const now = statStamp(name, false)
    if (now === undefined || now.kind !== 'file' || !sameFileStamp(now, entry.stamp)) {
      this.#delete(name)
      return undefined
    }
    this.#entries.delete(name)
    this.#entries.set(name, entry)
    return entry.file
  }

  /**
   * Keep the read of `name`: `stamp` is the stamp of the handle read, taken before the read, and
   * `startedMs` the clock before it (a stamp changed within the racy window is not kept: core's
   * `stampIsRacy`).
   */
  store(name: string, maxLineLength: number, stamp: FileStamp, file: FileText, startedMs: number) {
    if (stampIsRacy(stamp, startedMs, this.#racyMs) || file.text.length > this.#maxChars) return
    this.#delete(name)
    this.#entries.set(name, { file, maxLineLength, stamp })
    this.#chars += file.text.length
    for (const [oldest] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break
      this.#delete(oldest)
    }
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
    const known = this.#listings.get(dir)
    if (known !== undefined && now?.kind === 'directory' && sameFileStamp(known.stamp, now)) {
      return known.value as T
    }
    this.#listings.delete(dir)
    const startedMs = Date.now()
    const value = await list()
    if (now?.kind === 'directory' && !stampIsRacy(now, startedMs, this.#racyMs)) {
      this.#listings.set(dir, { value, stamp: now })
      for (const oldest of this.#listings.keys()) {
        if (this.#listings.size <= MAX_LISTINGS) break
        this.#listings.delete(oldest)
      }
    }
    return value
  }

  #delete(name: string): void {
    const entry = this.#entries.get(name)
    if (entry === undefined) return
    this.#chars -= entry.file.text.length
    this.#entries.delete(name)
  }
}
