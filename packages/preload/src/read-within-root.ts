import { realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { assertString, errnoCode, parseWith } from '@contextkit/core'
import {
  type FileStamp,
  type FileWithinRoot,
  openWithinRoot,
  readTextFile,
  type TextFileRead,
  UnsafeWriteError,
} from '@contextkit/core/node'
import * as z from 'zod'
import { compileDenyList, DEFAULT_DENY_LIST, type DenyMatcher } from './deny-list.js'
import {
  BinaryFileError,
  FileNotFoundError,
  FileTooLargeError,
  InvalidPathError,
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
  /** How many characters those cuts removed (the markers not counted). */
  cutChars: number
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

/** {@link ReadLimits} checked, defaults applied. @internal */
export interface ResolvedLimits {
  maxBytes: number
  /** `Infinity`: lines are never cut. */
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
 * 2. The file is opened by core's confined open (`openWithinRoot` with `followLinks`): from
 *    `realpath(root)` one directory at a time, never following a symlink itself; a symlink on
 *    the way is read and followed only when it leads to a place inside the root, so nothing
 *    outside the root is opened or even looked at. The file is opened `O_NOFOLLOW | O_NONBLOCK`
 *    (FIFOs never block) and must be a regular file; the deny list is checked again on where
 *    symlinks led.
 * 3. At most `maxBytes + 1` bytes are read from that same handle, so swapping the file for a
 *    symlink between check and read cannot leak the target.
 * 4. NUL in the first 8 KB → binary; invalid UTF-8 is refused (never replaced with U+FFFD);
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
  const denied = limits.deny?.(checked.segments)
  if (denied !== undefined) {
    return refuse(
      new PathDeniedError(`"${rel}" matches the deny list (${denied})`, {
        recoverable: true,
        details: { path: rel, pattern: denied },
      }),
    )
  }
  if (typeof realRoot !== 'string') return refuse(realRoot)
  // only files read at their own name (no symlink on the way) are kept, so a hit is one
  const name = path.join(realRoot, ...checked.segments)
  const hit = cache?.lookup(name, limits.maxLineLength, limits.maxBytes)
  if (hit) return { ok: true, file: hit }
  const startedMs = Date.now()
  let opened: FileWithinRoot
  try {
    opened = await openWithinRoot(realRoot, rel, { followLinks: true })
  } catch (error) {
    return refuse(openRefusal(error, rel))
  }
  try {
    const read = await readOpened(opened, rel, limits)
    if (!('text' in read)) return refuse(read)
    if (!opened.viaLink) cache?.store(name, limits.maxLineLength, read.stamp, read.file, startedMs)
    return { ok: true, file: read.file }
  } catch (cause) {
    return refuse(readFailed(rel, cause, errnoCode(cause)))
  } finally {
    await opened.handle.close().catch(() => undefined)
  }
}

/** Check where symlinks led against the deny list, then read and decode the opened file. */
async function readOpened(
  opened: FileWithinRoot,
  rel: string,
  limits: ResolvedLimits,
): Promise<{ text: true; file: FileText; stamp: FileStamp } | PreloadRefusalError> {
  const realDenied = opened.viaLink ? limits.deny?.(opened.relPath.split('/')) : undefined
  if (realDenied !== undefined) {
    return new PathDeniedError(`"${rel}" resolves to a path on the deny list (${realDenied})`, {
      recoverable: true,
      details: { path: rel, pattern: realDenied },
    })
  }
  // core's small-file reader on this same handle: at most maxBytes + 1 bytes, NUL sniff,
  // strict UTF-8 (never U+FFFD), one BOM removed
  const { maxBytes, maxLineLength } = limits
  const read = await readTextFile(opened.handle, { maxBytes, binarySniffBytes: BINARY_SNIFF_BYTES })
  if (!read.ok) return readRefusal(read, rel, maxBytes)
  // an infinite length (preload's default) keeps every line whole
  const { text, cut, removed } = Number.isFinite(maxLineLength)
    ? cutLongLines(read.text, maxLineLength)
    : { text: read.text, cut: 0, removed: 0 }
  const file: FileText = {
    path: rel,
    realPath: opened.path,
    text,
    bytes: read.bytes.length,
    lines: countLines(read.text),
    cutLines: cut,
    cutChars: removed,
    bom: read.bom,
  }
  return { text: true, file, stamp: read.stamp }
}

function readFailed(rel: string, cause: unknown, errno: string | undefined): ReadFailedError {
  return new ReadFailedError(`Reading "${rel}" failed`, {
    recoverable: true,
    cause,
    details: { path: rel, errno },
  })
}

/**
 * The refusal for a failed confined open: core's `UnsafeWriteError` by its reason, or the file
 * system's error by its code. What lies outside the root is never described (not even its kind).
 */
function openRefusal(error: unknown, rel: string): PreloadRefusalError {
  const recoverable = true
  if (UnsafeWriteError.isInstance(error)) {
    const { reason, at, kind } = error.details
    switch (reason) {
      case 'not_a_file':
        return new NotAFileError(`"${rel}" is not a regular file (${String(kind)})`, {
          recoverable,
          details: { path: rel, kind },
        })
      case 'not_a_directory':
        return new FileNotFoundError(`"${rel}" does not exist`, {
          recoverable,
          details: { path: rel, errno: 'ENOTDIR' },
        })
      case 'bad_path':
        return new InvalidPathError(`"${rel}" is not a path that can be opened`, {
          recoverable,
          cause: error,
          details: { path: rel, reason: 'bad_path' },
        })
      case 'leaves_root':
        if (at === 'directory') break
        return new PathOutsideRootError(`"${rel}" is a symlink leading outside the root`, {
          recoverable,
          details: { path: rel, reason: 'symlink' },
        })
      default:
        // a loop of links, or a path that moved while it was opened
        return new PathOutsideRootError(`"${rel}" changed into a symlink while opening`, {
          recoverable,
          details: { path: rel, reason: 'symlink' },
        })
    }
    return new PathOutsideRootError(`"${rel}" resolves outside the root`, {
      recoverable,
      details: { path: rel, reason: 'resolves_outside' },
    })
  }
  const errno = errnoCode(error)
  if (errno === 'ENOENT' || errno === 'ENOTDIR') {
    return new FileNotFoundError(`"${rel}" does not exist`, {
      recoverable,
      details: { path: rel, errno },
    })
  }
  return new ReadFailedError(`Opening "${rel}" failed`, {
    recoverable,
    cause: error,
    details: { path: rel, errno },
  })
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
        details: { path: rel, kind: read.stats?.isDirectory() ? 'directory' : 'other' },
      })
    default:
      return new ReadFailedError(`Reading "${rel}" failed`, {
        recoverable: true,
        cause: read.cause,
        details: { path: rel, errno: read.errno },
      })
  }
}
