import { type BigIntStats, constants, realpathSync, type Stats, statSync } from 'node:fs'
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { assertString, errnoCode, parseWith } from '@contextkit/core'
import { fileStamp, readTextFile, type TextFileRead } from '@contextkit/core/node'
import * as z from 'zod'
import { compileDenyList, DEFAULT_DENY_LIST, type DenyMatcher } from './deny-list.js'
import {
  BinaryFileError,
  FileNotFoundError,
  FileTooLargeError,
  InvalidUtf8Error,
  NotAFileError,
  PathDeniedError,
  PathOutsideRootError,
  type PreloadRefusalError,
  ReadFailedError,
  RootUnavailableError,
} from './errors.js'
import { checkRelativePath, type PathLimits } from './path-checks.js'
import type { ReadCache } from './read-cache.js'
import { countLines, cutLongLines } from './text-lines.js'

/** Limits and filters of {@link readWithinRoot}. */
export interface ReadLimits extends PathLimits {
  /** Largest file accepted, in bytes; larger files are refused, not cut. Default `1_048_576`. */
  maxBytes?: number
  /** Lines longer than this many characters are cut with a marker. Default `4000`. */
  maxLineLength?: number
  /**
   * Patterns of paths to refuse ({@link DEFAULT_DENY_LIST} syntax), checked on the requested path
   * and on the real path after symlinks. `false` turns the deny list off. Default
   * {@link DEFAULT_DENY_LIST}.
   */
  deny?: readonly string[] | false
}

/** A file read by {@link readWithinRoot}. */
export interface FileText {
  /** Normalized relative path as requested (`src/app.ts`). */
  path: string
  /** Real absolute path of the file that was read. */
  realPath: string
  /** Decoded text, BOM removed, over-long lines cut. */
  text: string
  /** Size in bytes on disk. */
  bytes: number
  /** Number of lines (a final newline does not start a new line). */
  lines: number
  /** How many lines were cut for being longer than `maxLineLength`. */
  cutLines: number
  /** Whether the file started with a UTF-8 byte order mark (removed from `text`). */
  bom: boolean
}

/**
 * What {@link readWithinRoot} returns: the text, or a typed refusal (a {@link PreloadRefusalError}
 * subclass, returned, not thrown).
 */
export type ReadResult =
  | { ok: true; file: FileText }
  | { ok: false; path: string; error: PreloadRefusalError }

/** Bytes sniffed for NUL to call a file binary. */
export const BINARY_SNIFF_BYTES = 8192

const LimitsSchema = z.object({
  maxBytes: z.number().int().positive().optional(),
  maxLineLength: z.number().int().positive().optional(),
  maxPathBytes: z.number().int().positive().optional(),
  maxComponentBytes: z.number().int().positive().optional(),
  deny: z.union([z.array(z.string()).readonly(), z.literal(false)]).optional(),
})

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
const denyCache = new WeakMap<readonly string[], DenyMatcher>()

function denyMatcher(deny: readonly string[] | false | undefined): DenyMatcher | undefined {
  if (deny === false) return undefined
  const list = deny ?? DEFAULT_DENY_LIST
  let matcher = denyCache.get(list)
  if (!matcher) {
    matcher = compileDenyList(list)
    denyCache.set(list, matcher)
  }
  return matcher
}

/** `true` when `target` is strictly inside `root` (both absolute, real paths). */
function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target)
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel)
}

function kindOf(st: Stats | BigIntStats): string {
  if (st.isDirectory()) return 'directory'
  if (st.isFIFO()) return 'fifo'
  if (st.isSocket()) return 'socket'
  if (st.isCharacterDevice()) return 'character_device'
  if (st.isBlockDevice()) return 'block_device'
  return 'other'
}

/**
 * The real path of an open handle: `/proc/self/fd/N` on Linux; elsewhere the real path of the
 * name, accepted only if it is the very file the handle holds (same device and inode).
 */
async function handleRealPath(
  fh: FileHandle,
  name: string,
  st: BigIntStats,
): Promise<string | null> {
  try {
    const real = await readlink(`/proc/self/fd/${fh.fd}`)
    // A file unlinked after we opened it reads as "<path> (deleted)"; the handle is still it.
    return st.nlink === 0n && real.endsWith(' (deleted)') ? real.slice(0, -10) : real
  } catch {
    try {
      const real = await realpath(name)
      const again = await stat(real, { bigint: true })
      return again.dev === st.dev && again.ino === st.ino ? real : null
    } catch {
      return null
    }
  }
}

/** {@link ReadLimits} checked, defaults applied. @internal */
export interface ResolvedLimits {
  maxBytes: number
  maxLineLength: number
  path: PathLimits
  deny: DenyMatcher | undefined
}

/** Check `limits` (a `ValidationError` when malformed) and apply the defaults. @internal */
export function resolveLimits(limits: ReadLimits, what: string): ResolvedLimits {
  const opts = parseWith(LimitsSchema, limits, what)
  return {
    maxBytes: opts.maxBytes ?? 1_048_576,
    maxLineLength: opts.maxLineLength ?? 4000,
    path: {
      ...(opts.maxPathBytes === undefined ? {} : { maxPathBytes: opts.maxPathBytes }),
      ...(opts.maxComponentBytes === undefined
        ? {}
        : { maxComponentBytes: opts.maxComponentBytes }),
    },
    deny: denyMatcher(opts.deny),
  }
}

/** The real path of `root`, or why it cannot be read from. Never throws. @internal */
export async function resolveRoot(root: string): Promise<string | RootUnavailableError> {
  try {
    const realRoot = realpathSync.native(root)
    if (!statSync(realRoot).isDirectory()) throw new Error('not a directory')
    return realRoot
  } catch (cause) {
    return new RootUnavailableError('The root directory cannot be resolved', {
      recoverable: true,
      cause,
      details: { root },
    })
  }
}

/**
 * Read a UTF-8 text file inside `root` — the only way this package touches file contents.
 *
 * 1. The path string is checked on every OS ({@link checkRelativePath}) and against the deny list.
 * 2. The file is opened once with `O_RDONLY | O_NOFOLLOW | O_NONBLOCK` (FIFOs never block).
 *    A final-component symlink is followed only if its target is inside the root.
 * 3. The handle's real path (`/proc/self/fd/N`) must be inside `realpath(root)`, compared with
 *    `path.relative` (checked first, so nothing about a target outside is reported); then it is
 *    `fstat`ed (regular files only) and the deny list is checked again on the real path.
 * 4. At most `maxBytes + 1` bytes are read from that same handle, so swapping the file for a
 *    symlink between check and read cannot leak the target.
 * 5. NUL in the first 8 KB → binary; invalid UTF-8 is refused (never replaced with U+FFFD);
 *    lines over `maxLineLength` are cut with a marker.
 *
 * Never throws for anything about the file: every refusal is returned as `{ ok: false, error }`.
 * Throws a `ValidationError` only for malformed `limits` (a programming error).
 */
export async function readWithinRoot(
  root: string,
  relPath: string,
  limits: ReadLimits = {},
): Promise<ReadResult> {
  assertString(root, 'readWithinRoot', 'root')
  const resolved = resolveLimits(limits, 'readWithinRoot limits')
  return readResolved(await resolveRoot(root), relPath, resolved)
}

/**
 * {@link readWithinRoot} with its root already resolved ({@link resolveRoot}) and its limits
 * checked ({@link resolveLimits}), for callers that read many files of one root per run; with a
 * `cache`, a file unchanged since its last read is not read again (see {@link ReadCache}).
 * @internal
 */
export async function readResolved(
  realRoot: string | RootUnavailableError,
  relPath: string,
  limits: ResolvedLimits,
  cache?: ReadCache,
): Promise<ReadResult> {
  const refuse = (error: PreloadRefusalError): ReadResult => ({
    ok: false,
    // a path that is not a string is reported by kind: a null-prototype object has no String()
    path: typeof relPath === 'object' && relPath !== null ? '[object]' : String(relPath),
    error,
  })

  const checked = checkRelativePath(relPath, limits.path)
  if (!('segments' in checked)) return refuse(checked)
  const rel = checked.path
  const { deny, maxBytes, maxLineLength } = limits
  const denied = deny?.(checked.segments)
  if (denied !== undefined) {
    return refuse(
      new PathDeniedError(`"${rel}" matches the deny list (${denied})`, {
        recoverable: true,
        details: { path: rel, pattern: denied },
      }),
    )
  }
  if (typeof realRoot !== 'string') return refuse(realRoot)

  const name = path.join(realRoot, ...checked.segments)
  const hit = await cache?.lookup(name, maxLineLength, maxBytes)
  // the requested path passed the deny list above; a real path elsewhere is checked too
  if (hit && (hit.realPath === name || isInside(realRoot, hit.realPath))) {
    if (
      hit.realPath === name ||
      deny?.(path.relative(realRoot, hit.realPath).split(path.sep)) === undefined
    ) {
      return { ok: true, file: hit }
    }
  }
  const startedMs = Date.now()
  const opened = await openNoFollow(name, realRoot, rel, deny)
  if (!('fh' in opened)) return refuse(opened)
  const { fh } = opened
  try {
    const st = await fh.stat({ bigint: true })
    // Containment first: what lies outside the root (even its kind) is never reported.
    const real = await handleRealPath(fh, opened.name, st)
    if (real === null || !isInside(realRoot, real)) {
      return refuse(
        new PathOutsideRootError(`"${rel}" resolves outside the root`, {
          recoverable: true,
          details: { path: rel, reason: 'resolves_outside' },
        }),
      )
    }
    if (!st.isFile()) {
      return refuse(
        new NotAFileError(`"${rel}" is not a regular file (${kindOf(st)})`, {
          recoverable: true,
          details: { path: rel, kind: kindOf(st) },
        }),
      )
    }
    const realDenied = deny?.(path.relative(realRoot, real).split(path.sep))
    if (realDenied !== undefined) {
      return refuse(
        new PathDeniedError(`"${rel}" resolves to a path on the deny list (${realDenied})`, {
          recoverable: true,
          details: { path: rel, pattern: realDenied },
        }),
      )
    }
    // core's small-file reader on this same handle: at most maxBytes + 1 bytes, NUL sniff,
    // strict UTF-8 (never U+FFFD), one BOM removed
    const read = await readTextFile(fh, { maxBytes, binarySniffBytes: BINARY_SNIFF_BYTES })
    if (!read.ok) return refuse(readRefusal(read, rel, maxBytes))
    const { text, cut } = cutLongLines(read.text, maxLineLength)
    const file: FileText = {
      path: rel,
      realPath: real,
      text,
      bytes: read.bytes.length,
      lines: countLines(read.text),
      cutLines: cut,
      bom: read.bom,
    }
    // only a file opened at its name (not through a final symlink) is looked up by that name
    if (opened.name === name) cache?.store(name, maxLineLength, fileStamp(st), file, startedMs)
    return { ok: true, file }
  } catch (cause) {
    return refuse(
      new ReadFailedError(`Reading "${rel}" failed`, {
        recoverable: true,
        cause,
        details: { path: rel, errno: errnoCode(cause) },
      }),
    )
  } finally {
    await fh.close().catch(() => undefined)
  }
}

/** The refusal for a failed {@link readTextFile} of an open, checked handle. */
function readRefusal(
  read: Extract<TextFileRead, { ok: false }>,
  rel: string,
  maxBytes: number,
): PreloadRefusalError {
  switch (read.problem) {
    case 'too-large':
      return new FileTooLargeError(`"${rel}" is over ${maxBytes} bytes`, {
        recoverable: true,
        details: { path: rel, size: read.size, maxBytes },
      })
    case 'binary':
      return new BinaryFileError(`"${rel}" looks binary (NUL byte in the first 8 KB)`, {
        recoverable: true,
        details: { path: rel },
      })
    case 'not-utf8':
      return new InvalidUtf8Error(`"${rel}" is not valid UTF-8`, {
        recoverable: true,
        cause: read.cause,
        details: { path: rel },
      })
    case 'not-a-file':
      return new NotAFileError(`"${rel}" is not a regular file`, {
        recoverable: true,
        details: { path: rel, kind: read.stats ? kindOf(read.stats) : 'other' },
      })
    default:
      return new ReadFailedError(`Reading "${rel}" failed`, {
        recoverable: true,
        cause: read.cause,
        details: { path: rel, errno: read.errno },
      })
  }
}

async function openNoFollow(
  name: string,
  realRoot: string,
  rel: string,
  deny: DenyMatcher | undefined,
): Promise<{ fh: FileHandle; name: string } | PreloadRefusalError> {
  try {
    return { fh: await open(name, OPEN_FLAGS), name }
  } catch (error) {
    const errno = errnoCode(error)
    if (errno === 'ELOOP' || errno === 'EMLINK' || errno === 'EFTYPE') {
      return openSymlinkTarget(name, realRoot, rel, deny)
    }
    return openError(error, rel)
  }
}

/** The final component is a symlink: follow it only when its target is inside the root. */
async function openSymlinkTarget(
  name: string,
  realRoot: string,
  rel: string,
  deny: DenyMatcher | undefined,
): Promise<{ fh: FileHandle; name: string } | PreloadRefusalError> {
  let target: string
  try {
    target = await realpath(name)
  } catch (error) {
    return openError(error, rel)
  }
  if (!isInside(realRoot, target)) {
    return new PathOutsideRootError(`"${rel}" is a symlink leading outside the root`, {
      recoverable: true,
      details: { path: rel, reason: 'symlink' },
    })
  }
  const denied = deny?.(path.relative(realRoot, target).split(path.sep))
  if (denied !== undefined) {
    return new PathDeniedError(`"${rel}" links to a path on the deny list (${denied})`, {
      recoverable: true,
      details: { path: rel, pattern: denied },
    })
  }
  try {
    return { fh: await open(target, OPEN_FLAGS), name: target }
  } catch (error) {
    return openError(error, rel)
  }
}

function openError(error: unknown, rel: string): PreloadRefusalError {
  const errno = errnoCode(error)
  if (errno === 'ENOENT' || errno === 'ENOTDIR') {
    return new FileNotFoundError(`"${rel}" does not exist`, {
      recoverable: true,
      details: { path: rel, errno },
    })
  }
  if (errno === 'ENXIO' || errno === 'EOPNOTSUPP') {
    return new NotAFileError(`"${rel}" is not a regular file (socket)`, {
      recoverable: true,
      details: { path: rel, kind: 'socket', errno },
    })
  }
  if (errno === 'ELOOP' || errno === 'EMLINK' || errno === 'EFTYPE') {
    return new PathOutsideRootError(`"${rel}" changed into a symlink while opening`, {
      recoverable: true,
      details: { path: rel, reason: 'symlink' },
    })
  }
  return new ReadFailedError(`Opening "${rel}" failed`, {
    recoverable: true,
    cause: error,
    details: { path: rel, errno },
  })
}
