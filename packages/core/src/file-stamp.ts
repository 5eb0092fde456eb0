import { type BigIntStats, lstatSync, statSync } from 'node:fs'
import { assertFiniteNumber, assertString, invalidArgument } from './errors.js'

/**
 * What names one file system entry as it is now, from a `stat` with `bigint: true`: its device
 * and inode (which entry), its size, and its modification and change times to the nanosecond
 * (which version). Writing the file moves its times; replacing it by rename gives a new inode;
 * setting its modification time back (`cp -p`, `rsync -t`) still moves its change time. So two
 * equal stamps name the same unchanged entry, unless a write fell in the same tick of the file
 * system's clock as the stamp ({@link stampIsRacy}).
 */
export interface FileStamp {
  /** A regular file, a directory, or anything else (a symbolic link under `lstat`, a FIFO…). */
  readonly kind: 'file' | 'directory' | 'other'
  /** The device the entry is on. */
  readonly dev: bigint
  /** Its inode on that device. */
  readonly ino: bigint
  /** Its size in bytes. */
  readonly size: bigint
  /** Its last modification time, in nanoseconds since the epoch. */
  readonly mtimeNs: bigint
  /** Its last status change time (writes, renames, `chmod`, `utimes`), in nanoseconds. */
  readonly ctimeNs: bigint
}

/**
 * A stamp whose entry changed closer than this (ms) to the start of the read it describes is not
 * to be trusted for caching: a write in the same tick of a coarse file system clock (1–2 s on
 * FAT and HFS+) could leave every field as it was.
 */
export const FILE_STAMP_RACY_MS = 2000

/** The {@link FileStamp} of `stats` (a `stat`, `lstat` or `fstat` taken with `bigint: true`). */
export function fileStamp(stats: BigIntStats): FileStamp {
  const s = stats as Partial<BigIntStats> | null
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.ino !== 'bigint' ||
    typeof s.isFile !== 'function'
  ) {
    invalidArgument('fileStamp', 'stats', 'a stat taken with { bigint: true }', stats)
  }
  const kind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other'
  const { dev, ino, size, mtimeNs, ctimeNs } = stats
  return { kind, dev, ino, size, mtimeNs, ctimeNs }
}

/**
 * The stamp of `path` now, by one synchronous `stat` (`lstat` when `follow` is `false`: a
 * symbolic link's own stamp), or `undefined` when it cannot be taken (missing, no permission,
 * any error). Synchronous on purpose: on a local disk a `stat` takes microseconds, less than a
 * thread-pool round trip; used to check files already read, never to read them.
 */
export function statStamp(path: string, follow = true): FileStamp | undefined {
  assertString(path, 'statStamp', 'path')
  try {
    const options = { bigint: true, throwIfNoEntry: false } as const
    const stats = follow ? statSync(path, options) : lstatSync(path, options)
    return stats === undefined ? undefined : fileStamp(stats)
  } catch {
    return undefined
  }
}

/** Whether `a` and `b` name the same entry, unchanged (every field equal). */
export function sameFileStamp(a: FileStamp, b: FileStamp): boolean {
  assertStamp(a, 'sameFileStamp', 'a')
  assertStamp(b, 'sameFileStamp', 'b')
  return (
    a.kind === b.kind &&
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  )
}

/**
 * Whether `stamp`'s entry changed within `racyMs` (default {@link FILE_STAMP_RACY_MS}) before
 * `startedMs` (`Date.now()` taken before the stat or read the stamp describes): then a write in
 * the same clock tick could hide behind an equal stamp, and what was read must not be cached.
 */
export function stampIsRacy(
  stamp: FileStamp,
  startedMs: number,
  racyMs: number = FILE_STAMP_RACY_MS,
): boolean {
  assertStamp(stamp, 'stampIsRacy', 'stamp')
  assertFiniteNumber(startedMs, 'stampIsRacy', 'startedMs')
  assertFiniteNumber(racyMs, 'stampIsRacy', 'racyMs')
  const changedMs = Math.max(Number(stamp.mtimeNs / 1_000_000n), Number(stamp.ctimeNs / 1_000_000n))
  return startedMs - changedMs < racyMs
}

function assertStamp(value: unknown, fn: string, param: string): asserts value is FileStamp {
  const v = value as Partial<FileStamp> | null
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.mtimeNs !== 'bigint' ||
    typeof v.ctimeNs !== 'bigint' ||
    typeof v.ino !== 'bigint'
  ) {
    invalidArgument(fn, param, 'a FileStamp', value)
  }
}
