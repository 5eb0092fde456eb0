import { randomUUID } from 'node:crypto'
import { mkdir, rename } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import {
  assertString,
  ContextkitError,
  errnoCode,
  invalidArgument,
  parseWith,
  ValidationError,
} from '@contextkit/core'
import {
  type FileLockError,
  FileLockTimeoutError,
  type FileReadCache,
  type FileStamp,
  mkdirWithinRoot,
  readTextFile,
  replaceWithinRoot,
  sweepAbandonedSideFiles,
  withFileLock,
} from '@contextkit/core/node'
import * as z from 'zod'
import {
  StateConflictError,
  StateCorruptError,
  StateIoError,
  StateLockError,
  StateVersionError,
} from './errors.js'
import { checkState, optionsOf } from './guards.js'
import { StateFileOptionsSchema } from './options.js'
import { migrateSelfState, type SelfState, SelfStateSchema } from './self-state.js'

/** Options of {@link loadSelfState}, {@link saveSelfState} and {@link updateSelfState}. */
export interface StateFileOptions {
  /** Clock, used for `updatedAt` and quarantine names. Default `Date.now`. */
  now?: () => number
  /** Where the previous good copy is kept. Default `<path>.bak`. */
  backupPath?: string
  /** Lock file serializing writers. Default `<path>.lock`. */
  lockPath?: string
  /** How long a writer waits for the lock: 0 to 2^31 − 1 ms. Default `5000` ms. */
  lockTimeoutMs?: number
  /**
   * Age after which a lock whose owner cannot be checked (another host, no process start time)
   * is considered abandoned: 0 to 2^31 − 1 ms. A lock whose owner is alive on this host is never
   * broken by age (see core's `withFileLock`). Default `30000` ms.
   */
  staleLockMs?: number
  /**
   * Largest state file read or written, a positive integer. A larger file is reported (a
   * problem) and left in place, never quarantined: the limit is the caller's choice, not a sign
   * of a damaged file. A save that would write more is refused. Default `1048576` (1 MiB).
   */
  maxBytes?: number
  /**
   * The directory the state files are written in: no symlink below it is followed and no
   * hard-linked file replaced (core's `replaceWithinRoot`), so a planted symlinked
   * `.contextkit/` is refused. The middleware passes the run's workspace for its default path.
   * Default: each file's own directory.
   */
  root?: string
}

/** Options of {@link saveSelfState} and {@link updateSelfState}. */
export interface SaveOptions extends StateFileOptions {
  /**
   * Optimistic check: the save fails with {@link StateConflictError} unless the state on disk has
   * this `revision` (0 when there is no file). Default: no check (the last writer wins).
   */
  expectedRevision?: number
}

/** What {@link loadSelfState} found. */
export interface LoadResult {
  /** The state, or `null` when there is none usable (resumption is off for this call). */
  state: SelfState | null
  /** Where the state came from. */
  source: 'file' | 'backup' | 'none'
  /** Every problem met on the way, as typed errors (corrupt file, newer version, IO). */
  problems: ContextkitError[]
  /** Paths corrupt files were moved to. */
  quarantined: string[]
}

/**
 * `corrupt` is `true` only when the file's content itself is damaged (not UTF-8, not JSON, not a
 * state): only such a file may be quarantined. A file over the caller's `maxBytes` or of a newer
 * version is reported and left alone.
 */
type ReadOutcome =
  | { kind: 'missing' }
  | { kind: 'ok'; state: SelfState; bytes: Buffer; stamp: FileStamp }
  | { kind: 'bad'; error: ContextkitError; corrupt: boolean; bytes?: Buffer }

const DEFAULT_MAX_BYTES = 1024 * 1024

function ioError(message: string, path: string, cause: unknown): StateIoError {
  return new StateIoError(message, { recoverable: true, cause, details: { path } })
}

/** Read and validate one state file; never throws. */
async function readStateFile(path: string, maxBytes: number): Promise<ReadOutcome> {
  // core's small-file reader: O_NONBLOCK (a FIFO planted at the path cannot hang us), regular
  // files only, at most maxBytes + 1 bytes read, strict UTF-8, one BOM removed
  const read = await readTextFile(path, { maxBytes })
  if (!read.ok) {
    switch (read.problem) {
      case 'missing':
        return { kind: 'missing' }
      case 'not-a-file':
        return {
          kind: 'bad',
          error: ioError(`${path} is not a regular file`, path, undefined),
          corrupt: false,
        }
      case 'too-large': {
        const error = new StateCorruptError(
          `${path} is larger than maxBytes (${maxBytes} bytes); it was left in place`,
          { recoverable: true, details: { path, size: read.size, maxBytes, reason: 'too-large' } },
        )
        return { kind: 'bad', error, corrupt: false }
      }
      case 'not-utf8': {
        const error = new StateCorruptError(`${path} is not valid UTF-8`, {
          recoverable: true,
          cause: read.cause,
          details: { path },
        })
        return { kind: 'bad', error, corrupt: true, ...(read.bytes ? { bytes: read.bytes } : {}) }
      }
      default:
        return {
          kind: 'bad',
          error: ioError(`cannot read ${path}`, path, read.cause),
          corrupt: false,
        }
    }
  }
  const { bytes } = read
  try {
    const state = migrateSelfState(JSON.parse(read.text))
    return { kind: 'ok', state, bytes, stamp: read.stamp }
  } catch (error) {
    if (StateVersionError.isInstance(error)) return { kind: 'bad', error, corrupt: false, bytes }
    const why = ValidationError.isInstance(error)
      ? 'does not match the schema'
      : 'is not valid JSON'
    const corrupt = new StateCorruptError(`${path} ${why}`, {
      recoverable: true,
      cause: error,
      details: { path },
    })
    return { kind: 'bad', error: corrupt, corrupt: true, bytes }
  }
}

/** `file` relative to `root` (`/`-separated), or `null` when it is not inside. */
function insideRoot(root: string, file: string): string | null {
  const rel = relative(resolve(root), resolve(file))
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null
  return rel.split(sep).join('/')
}

/** The root a state file is written under: `options.root`, else the file's directory. */
function rootOf(file: string, options: StateFileOptions): { root: string; rel: string } {
  const root = options.root ?? dirname(file)
  const rel = insideRoot(root, file)
  if (rel === null)
    invalidArgument('resumption state file', 'options.root', `a directory holding ${file}`)
  return { root, rel }
}

/**
 * Write `data` to `target` atomically through core's `replaceWithinRoot`: temp file beside it,
 * fsync, rename, fsync the folder; no symlink or hard link followed below the root.
 */
async function writeAtomic(
  target: string,
  data: string | Buffer,
  options: StateFileOptions,
): Promise<void> {
  const { root, rel } = rootOf(target, options)
  try {
    await replaceWithinRoot(root, rel, data)
  } catch (error) {
    throw ioError(`cannot write ${target}`, target, error)
  }
}

function quarantineName(path: string, now: () => number): string {
  const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-')
  return `${path}.corrupt-${stamp}-${randomUUID().slice(0, 6)}`
}

/**
 * Move a corrupt file aside. Only a file that still holds exactly the bytes judged corrupt is
 * moved, so a good write that landed in between is never quarantined by mistake.
 */
async function quarantine(
  path: string,
  seen: Buffer | undefined,
  options: StateFileOptions,
): Promise<string | null> {
  const now = options.now ?? Date.now
  const again = await readStateFile(path, options.maxBytes ?? DEFAULT_MAX_BYTES)
  if (again.kind !== 'bad' || !again.corrupt) return null
  if (seen && again.bytes && !seen.equals(again.bytes)) return null
  const target = quarantineName(path, now)
  try {
    await rename(path, target)
    return target
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw ioError(`cannot move corrupt ${path} aside`, path, error)
  }
}

function lockOptions(path: string, options: StateFileOptions) {
  const lockPath = options.lockPath ?? `${path}.lock`
  const lock: { timeoutMs?: number; staleMs?: number } = {}
  if (options.lockTimeoutMs !== undefined) lock.timeoutMs = options.lockTimeoutMs
  if (options.staleLockMs !== undefined) lock.staleMs = options.staleLockMs
  return { lockPath, lock }
}

/** Core's lock failures as this package's errors (a timeout, or the lock file cannot be made). */
function lockError(error: FileLockError): ContextkitError {
  const { message } = error
  const options = { recoverable: true, cause: error, details: error.details }
  return FileLockTimeoutError.isInstance(error)
    ? new StateLockError(message, options)
    : new StateIoError(message, options)
}

const SaveOptionsSchema = StateFileOptionsSchema.extend({
  expectedRevision: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
})

/** Check the options of a public function: an object, each known option of the right type. */
function checkOptions<T extends object>(value: T | undefined, fn: string): T {
  const options = optionsOf(value, fn)
  parseWith(SaveOptionsSchema, options, `${fn} options`)
  return options
}

/**
 * Load the state file at `path`. Never throws for a bad file: a corrupt or invalid file is moved
 * aside (`<path>.corrupt-<time>-<id>`) and the `.bak` copy is used instead; when that is unusable
 * too, `state` is `null` and `problems` says why. A file from a newer version is left in place.
 */
export async function loadSelfState(
  path: string,
  options: StateFileOptions = {},
): Promise<LoadResult> {
  assertString(path, 'loadSelfState', 'path')
  return loadSelfStateChecked(path, checkOptions(options, 'loadSelfState'))
}

/**
 * {@link loadSelfState} with `options` already checked (the middleware checks its options once,
 * not on every run). @internal
 */
export async function loadSelfStateChecked(
  path: string,
  options: StateFileOptions,
  cache?: FileReadCache<SelfState>,
): Promise<LoadResult> {
  const known = cache?.lookup(path)
  if (known) return { state: known, source: 'file', problems: [], quarantined: [] }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const backupPath = options.backupPath ?? `${path}.bak`
  const problems: ContextkitError[] = []
  const quarantined: string[] = []
  const { lockPath, lock } = lockOptions(path, options)

  const tryOne = async (file: string): Promise<SelfState | null> => {
    const startedMs = Date.now()
    const outcome = await readStateFile(file, maxBytes)
    if (outcome.kind === 'ok') {
      // a state kept is shared by the runs that hit: frozen
      if (cache && file === path && cache.store(path, outcome.stamp, outcome.state, startedMs)) {
        deepFreeze(outcome.state)
      }
      return outcome.state
    }
    if (outcome.kind === 'missing') return null
    problems.push(outcome.error)
    if (outcome.corrupt) {
      try {
        const moved = await withFileLock(
          lockPath,
          () => quarantine(file, outcome.bytes, options),
          lock,
          lockError,
        )
        if (moved) quarantined.push(moved)
      } catch (error) {
        problems.push(
          ContextkitError.isInstance(error) ? error : ioError('quarantine failed', file, error),
        )
      }
    }
    return null
  }

  const primary = await tryOne(path)
  if (primary) return { state: primary, source: 'file', problems, quarantined }
  // A newer-version primary is someone else's data: do not resume from an older backup.
  if (problems.some((p) => StateVersionError.isInstance(p))) {
    return { state: null, source: 'none', problems, quarantined }
  }
  const backup = await tryOne(backupPath)
  if (backup) return { state: backup, source: 'backup', problems, quarantined }
  return { state: null, source: 'none', problems, quarantined }
}

/**
 * Read-modify-write the state file under its lock. `update` receives the current state (from the
 * file, else from `.bak`, else `null`) and returns the next one, or `null` to write nothing.
 * The written state gets `revision` = current + 1 and `updatedAt` = now; the previous good file
 * becomes `.bak`; a corrupt file is moved aside first, never overwritten.
 *
 * @throws ValidationError when `update` returns an invalid state (a programming error).
 * @throws StateVersionError when the file on disk is from a newer version (it is left intact).
 * @throws StateConflictError when `expectedRevision` does not match the file.
 * @throws StateLockError when the lock cannot be taken in time.
 * @throws StateIoError when the file system refuses a read or write.
 */
export async function updateSelfState(
  path: string,
  update: (current: SelfState | null) => SelfState | null,
  options: SaveOptions = {},
): Promise<SelfState | null> {
  assertString(path, 'updateSelfState', 'path')
  if (typeof update !== 'function') invalidArgument('updateSelfState', 'update', 'a function')
  options = checkOptions(options, 'updateSelfState')
  const now = options.now ?? Date.now
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const backupPath = options.backupPath ?? `${path}.bak`
  const { lockPath, lock } = lockOptions(path, options)
  try {
    // the root is trusted; the folders below it are made without following a symlink, before
    // the lock file is created in them
    const { root, rel } = rootOf(path, options)
    await mkdir(root, { recursive: true })
    const relDir = rel.split('/').slice(0, -1).join('/')
    if (relDir !== '') await mkdirWithinRoot(root, relDir)
  } catch (error) {
    if (ValidationError.isInstance(error)) throw error
    throw ioError(`cannot create the folder of ${path}`, path, error)
  }
  return withFileLock(
    lockPath,
    async () => {
      // Temp files of writers killed before their rename (only lock holders write them).
      await sweepAbandonedSideFiles([path, backupPath], lock.staleMs)
      const outcome = await readStateFile(path, maxBytes)
      let current: SelfState | null = null
      if (outcome.kind === 'ok') current = outcome.state
      else if (outcome.kind === 'bad') {
        // Only damaged content is moved aside; a file we may not judge is never written over.
        if (!outcome.corrupt) throw outcome.error
        await quarantine(path, outcome.bytes, options)
      }
      if (current === null) {
        const backup = await readStateFile(backupPath, maxBytes)
        if (backup.kind === 'ok') current = backup.state
      }
      const currentRevision = current?.revision ?? 0
      if (options.expectedRevision !== undefined && options.expectedRevision !== currentRevision) {
        throw new StateConflictError(
          `${path} is at revision ${currentRevision}, expected ${options.expectedRevision}`,
          options.expectedRevision,
          currentRevision,
          {
            recoverable: true,
            details: { path, revision: currentRevision, expected: options.expectedRevision },
          },
        )
      }
      const proposed = update(current)
      if (proposed === null) return current
      const next: SelfState = {
        ...parseWith(SelfStateSchema, proposed, 'self-state to save'),
        revision: currentRevision + 1,
        updatedAt: new Date(now()).toISOString(),
      }
      const text = loadableText(next, path, maxBytes)
      if (outcome.kind === 'ok') await writeAtomic(backupPath, outcome.bytes, options)
      await writeAtomic(path, text, options)
      return next
    },
    lock,
    lockError,
  )
}

/**
 * The file text of `state`, checked the way {@link loadSelfState} will read it back: at most
 * `maxBytes` bytes and a valid current state (a revision past `Number.MAX_SAFE_INTEGER`, a wrong
 * `version` fail here). A save the loader would reject is refused, so it is never written, then
 * quarantined.
 *
 * @throws ValidationError naming `state` when the loader would reject the file.
 */
function loadableText(state: SelfState, path: string, maxBytes: number): string {
  const text = `${JSON.stringify(state, null, 2)}\n`
  const size = Buffer.byteLength(text, 'utf8')
  if (size > maxBytes) {
    throw new ValidationError(
      `Invalid self-state to save: ${size} bytes is larger than maxBytes (${maxBytes}) of ${path}`,
      [{ path: 'state', message: `expected at most ${maxBytes} bytes, got ${size}` }],
      { details: { path, size, maxBytes } },
    )
  }
  parseWith(SelfStateSchema, JSON.parse(text), 'self-state to save')
  return text
}

/**
 * Save `state` to `path` atomically (see {@link updateSelfState}) and return what was written.
 */
export async function saveSelfState(
  path: string,
  state: SelfState,
  options: SaveOptions = {},
): Promise<SelfState> {
  assertString(path, 'saveSelfState', 'path')
  checkState(state, 'saveSelfState')
  const saved = await updateSelfState(path, () => state, options)
  // update never returns null when the callback returns a state
  return saved as SelfState
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
