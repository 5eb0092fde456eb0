import * as z from 'zod'
import { assertString, invalidArgument, parseWith } from './errors.js'
import {
  FILE_STAMP_RACY_MS,
  type FileStamp,
  sameFileStamp,
  stampIsRacy,
  statStamp,
} from './file-stamp.js'

/** Options of {@link createFileReadCache}. */
export interface FileReadCacheOptions {
  /** How many files are remembered at most; the least recently used is forgotten first. Default `64`. */
  maxEntries?: number
  /**
   * How much the remembered values may weigh together (each {@link FileReadCache.store} says
   * what its value weighs: characters, bytes); the least recently used go first, and a value
   * heavier than this alone is not kept. Default `Infinity`.
   */
  maxWeight?: number
  /**
   * A read of a file changed less than this many milliseconds before the read started is not
   * kept: a write in the same tick of a coarse file system clock could leave its stamp as it was
   * (core's `stampIsRacy`). Default {@link FILE_STAMP_RACY_MS} (2,000).
   */
  racyMs?: number
  /**
   * How {@link FileReadCache.lookup} looks at a name: `true` takes a `stat` (a final symbolic
   * link is followed: for files opened by following it), `false` an `lstat` (a name that has
   * become a symbolic link never matches: for files opened with `O_NOFOLLOW`). Default `true`.
   */
  followLinks?: boolean
}

/** Options of {@link FileReadCache.lookup}. */
export interface FileReadCacheLookup<T> {
  /**
   * The stamp of the name now, when the caller took it already (a `stat` it needed anyway);
   * `null` when the name is gone. Default: the cache takes it ({@link statStamp}).
   */
  stamp?: FileStamp | null
  /**
   * Whether the kept value serves this caller (it was read with other limits); a value refused
   * is kept for others, and the lookup counts as a miss. Default: every value serves.
   */
  accept?: (value: T) => boolean
}

/**
 * Values read from files, each kept with the {@link FileStamp} of the handle it was read from:
 * a value is served again only while the name still shows the very file it was read from,
 * unchanged (device, inode, size, modification and change times to the nanosecond), so an
 * unchanged file costs one `stat` instead of open, read, decode and whatever the caller made of
 * the text. A file written in place, replaced by rename (a new inode), removed, or swapped for a
 * symbolic link (`followLinks: false`) misses, and its value is forgotten. Bounded by entries
 * and by weight, least recently used first. The one stamp-checked read cache of contextkit:
 * prefill's file cache, preload's reads and the state files use it.
 */
export interface FileReadCache<T> {
  /** How many files are remembered. */
  readonly size: number
  /** How many lookups were served (for tests and diagnostics). */
  readonly hits: number
  /** How many lookups were not served (nothing kept, a changed file, a value not accepted). */
  readonly misses: number
  /**
   * The value kept for `path`, when the name still shows the very file it was read from,
   * unchanged, and `accept` takes it; else `undefined` (the value of a changed or vanished file
   * is forgotten).
   */
  lookup(path: string, options?: FileReadCacheLookup<T>): T | undefined
  /**
   * Keep `value`, made from the file `path` named when it was read: `stamp` is the stamp of the
   * handle read (taken before the read) and `startedMs` the clock before the read. A racy stamp
   * or a value over `maxWeight` is not kept, and what was kept for `path` before is forgotten
   * (the file changed). Returns whether it was kept.
   */
  store(path: string, stamp: FileStamp, value: T, startedMs: number, weight?: number): boolean
  /** Forget `path`; `true` when something was kept for it. */
  delete(path: string): boolean
  /** Forget everything (the counters stay). */
  clear(): void
}

const OptionsSchema = z.strictObject({
  maxEntries: z.number().int().positive().optional(),
  maxWeight: z
    .number()
    .refine((n) => n > 0, 'expected a number > 0')
    .optional(),
  racyMs: z.number().nonnegative().optional(),
  followLinks: z.boolean().optional(),
})

interface Entry<T> {
  stamp: FileStamp
  value: T
  weight: number
}

/** Create a {@link FileReadCache}. Throws a `ValidationError` for invalid options. */
export function createFileReadCache<T>(options: FileReadCacheOptions = {}): FileReadCache<T> {
  const limits = parseWith(OptionsSchema, options, 'createFileReadCache options')
  return new StampedCache<T>(
    limits.maxEntries ?? 64,
    limits.maxWeight ?? Number.POSITIVE_INFINITY,
    limits.racyMs ?? FILE_STAMP_RACY_MS,
    limits.followLinks ?? true,
  )
}

/** The {@link FileReadCache}: a `Map` in use order (the least recently used first). */
class StampedCache<T> implements FileReadCache<T> {
  readonly #entries = new Map<string, Entry<T>>()
  #weight = 0
  #hits = 0
  #misses = 0

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
    private readonly racyMs: number,
    private readonly follow: boolean,
  ) {}

  get size(): number {
    return this.#entries.size
  }

  get hits(): number {
    return this.#hits
  }

  get misses(): number {
    return this.#misses
  }

  lookup(path: string, lookup: FileReadCacheLookup<T> = {}): T | undefined {
    assertString(path, 'FileReadCache.lookup', 'path')
    const entry = this.#entries.get(path)
    if (entry === undefined) return this.#miss()
    const now = lookup.stamp === undefined ? statStamp(path, this.follow) : lookup.stamp
    if (now === null || now === undefined || !sameFileStamp(now, entry.stamp)) {
      this.delete(path)
      return this.#miss()
    }
    if (lookup.accept !== undefined && !lookup.accept(entry.value)) return this.#miss()
    // most recently used last: eviction takes the first
    this.#entries.delete(path)
    this.#entries.set(path, entry)
    this.#hits++
    return entry.value
  }

  store(path: string, stamp: FileStamp, value: T, startedMs: number, weight = 0): boolean {
    assertString(path, 'FileReadCache.store', 'path')
    if (!(weight >= 0)) invalidArgument('FileReadCache.store', 'weight', 'a number ≥ 0', weight)
    this.delete(path)
    if (stampIsRacy(stamp, startedMs, this.racyMs) || !(weight <= this.maxWeight)) return false
    this.#entries.set(path, { stamp, value, weight })
    this.#weight += weight
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.maxEntries && this.#weight <= this.maxWeight) break
      this.delete(oldest)
    }
    return true
  }

  delete(path: string): boolean {
    const entry = this.#entries.get(path)
    if (entry === undefined) return false
    this.#weight -= entry.weight
    return this.#entries.delete(path)
  }

  clear(): void {
    this.#entries.clear()
    this.#weight = 0
  }

  #miss(): undefined {
    this.#misses++
    return undefined
  }
}
