import type { BigIntStats } from 'node:fs'
import { lstatSync, statSync } from 'node:fs'
import type { FileText } from './read-within-root.js'

/**
 * A file whose last change is closer than this to the start of its read is not cached: a write
 * in the same tick of the file system's clock (coarse on Linux, 1–2 s on FAT and HFS+) could
 * leave every stat field as it was.
 */
export const RACY_MS = 2000

interface Entry {
  file: FileText
  maxLineLength: number
  dev: bigint
  ino: bigint
  size: bigint
  mtimeNs: bigint
  ctimeNs: bigint
}

/** A directory listing, and the `stat` of the directory taken before it was listed. */
interface Listing {
  value: unknown
  dev: bigint
  ino: bigint
  mtimeNs: bigint
  ctimeNs: bigint
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
   * `racyMs` (default {@link RACY_MS}) is for tests.
   */
  constructor(limits: { maxEntries?: number; maxChars?: number; racyMs?: number } = {}) {
    this.#maxEntries = limits.maxEntries ?? 256
    this.#maxChars = limits.maxChars ?? 16 * 1024 * 1024
    this.#racyMs = limits.racyMs ?? RACY_MS
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
    const st = lstatQuiet(name)
    if (st === undefined || !st.isFile() || !sameFile(entry, st)) {
      this.#delete(name)
      return undefined
    }
    this.#entries.delete(name)
    this.#entries.set(name, entry)
    return entry.file
  }

  /**
   * Keep the read of `name`: `st` is the `fstat` of the handle read, taken before the read, and
   * `startedMs` the clock before that `fstat` (see {@link RACY_MS}).
   */
  store(name: string, maxLineLength: number, st: BigIntStats, file: FileText, startedMs: number) {
    if (startedMs - changedMs(st) < this.#racyMs || file.text.length > this.#maxChars) return
    this.#delete(name)
    const { dev, ino, size, mtimeNs, ctimeNs } = st
    this.#entries.set(name, { file, maxLineLength, dev, ino, size, mtimeNs, ctimeNs })
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
   * entry moves a directory's modification and change times. A directory changed within
   * {@link RACY_MS} of the listing is listed again next time.
   */
  async listing<T>(dir: string, list: () => Promise<T>): Promise<T> {
    const st = statQuiet(dir)
    const known = this.#listings.get(dir)
    if (known !== undefined && st !== undefined && sameDirectory(known, st)) {
      return known.value as T
    }
    this.#listings.delete(dir)
    const startedMs = Date.now()
    const value = await list()
    if (st?.isDirectory() && startedMs - changedMs(st) >= this.#racyMs) {
      const { dev, ino, mtimeNs, ctimeNs } = st
      this.#listings.set(dir, { value, dev, ino, mtimeNs, ctimeNs })
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

function sameFile(entry: Entry, st: BigIntStats): boolean {
  return (
    st.dev === entry.dev &&
    st.ino === entry.ino &&
    st.size === entry.size &&
    st.mtimeNs === entry.mtimeNs &&
    st.ctimeNs === entry.ctimeNs
  )
}

/** `lstat` of `name` (`undefined` when it cannot be taken). */
function lstatQuiet(name: string): BigIntStats | undefined {
  try {
    return lstatSync(name, { bigint: true, throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

function sameDirectory(entry: Listing, st: BigIntStats): boolean {
  return (
    st.isDirectory() &&
    st.dev === entry.dev &&
    st.ino === entry.ino &&
    st.mtimeNs === entry.mtimeNs &&
    st.ctimeNs === entry.ctimeNs
  )
}

/** `stat` of `name` (`undefined` when it cannot be taken). */
function statQuiet(name: string): BigIntStats | undefined {
  try {
    return statSync(name, { bigint: true, throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** When `st`'s file last changed (its modification or change time, the later), in ms. */
function changedMs(st: BigIntStats): number {
  return Math.max(Number(st.mtimeNs / 1_000_000n), Number(st.ctimeNs / 1_000_000n))
}
