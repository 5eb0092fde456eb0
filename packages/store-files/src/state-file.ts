import { mkdir } from 'node:fs/promises'
import {
  assertOptions,
  assertString,
  ContextkitError,
  invalidArgument,
  parseWith,
  ValidationError,
} from '@contextkit/core'
import {
  type FileReadCache,
  lockMsSchema,
  mkdirWithinRoot,
  sweepAbandonedSideFiles,
  withFileLock,
} from '@contextkit/core/node'
import * as z from 'zod'
import { StateConflictError } from './errors.js'
import {
  DEFAULT_MAX_BYTES,
  ioError,
  lockError,
  quarantine,
  type ReadOutcome,
  readStateFile,
  rootOf,
  STATE_FILE_MAX_BYTES,
  writeAtomic,
} from './state-file-io.js'
import type { StateFileFormat } from './state-format.js'

/** Options of {@link loadStateFile}, {@link updateStateFile} and {@link fileStateStore}. */
export interface StateFileOptions {
  /** Clock, for the time of a save and quarantine names. Default `Date.now`. */
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
   * of a damaged file. A save that would write more is refused (a `ValidationError` naming
   * `state`, nothing written). At most `268435456` (256 MiB), so a state file is never a string
   * past V8's limit. Default `1048576` (1 MiB).
   */
  maxBytes?: number
  /**
   * The directory the state files are written in: no symlink below it is followed and no
   * hard-linked file replaced (core's `replaceWithinRoot`), so a planted symlinked folder is
   * refused. Default: each file's own directory.
   */
  root?: string
}

/** Options of {@link updateStateFile}. */
export interface StateFileSaveOptions extends StateFileOptions {
  /**
   * Optimistic check: the save fails with {@link StateConflictError} unless the state on disk has
   * this revision (0 when there is no file). Default: no check (the last writer wins).
   */
  expectedRevision?: number
}

/** What {@link loadStateFile} found. */
export interface StateFileLoad<T> {
  /** The state, or `null` when there is none usable. */
  state: T | null
  /** Its revision (`0`: none). */
  revision: number
  /** Where the state came from. */
  source: 'file' | 'backup' | 'none'
  /** Every problem met on the way, as typed errors (corrupt file, newer version, IO). */
  problems: ContextkitError[]
  /** Paths corrupt files were moved to. */
  quarantined: string[]
}

/** Zod schema of {@link StateFileOptions}. */
export const StateFileOptionsSchema = z.strictObject({
  now: z.custom<() => number>((v) => typeof v === 'function', 'expected a function').optional(),
  backupPath: z.string().min(1).optional(),
  lockPath: z.string().min(1).optional(),
  lockTimeoutMs: lockMsSchema().optional(),
  staleLockMs: lockMsSchema().optional(),
  maxBytes: z.number().int().positive().max(STATE_FILE_MAX_BYTES).optional(),
  root: z.string().min(1).optional(),
})

const SaveOptionsSchema = StateFileOptionsSchema.extend({
  expectedRevision: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
})

/** A state and its revision, as a read cache keeps it. */
export interface Revisioned<T> {
  /** The state. */
  state: T
  /** The revision it was saved at (`1` for the first save). */
  revision: number
}

function checked<T extends object>(options: T | undefined, fn: string): T {
  assertOptions(options, fn)
  const value = options ?? ({} as T)
  parseWith(SaveOptionsSchema, value, `${fn} options`)
  return value
}

function checkFormat(format: unknown, fn: string): void {
  const f = format as Partial<StateFileFormat<unknown>> | null
  if (
    typeof f !== 'object' ||
    f === null ||
    typeof f.decode !== 'function' ||
    typeof f.encode !== 'function'
  ) {
    invalidArgument(fn, 'format', 'a StateFileFormat (decode and encode functions)', format)
  }
}

function lockOptions(path: string, options: StateFileOptions) {
  const lockPath = options.lockPath ?? `${path}.lock`
  const lock: { timeoutMs?: number; staleMs?: number } = {}
  if (options.lockTimeoutMs !== undefined) lock.timeoutMs = options.lockTimeoutMs
  if (options.staleLockMs !== undefined) lock.staleMs = options.staleLockMs
  return { lockPath, lock }
}

/**
 * Load the state file at `path` with `format`. Never throws for a bad file: a corrupt one is
 * moved aside (`<path>.corrupt-<time>-<id>`) and the `.bak` copy used instead; when that is
 * unusable too, `state` is `null` and `problems` says why. A file the format calls foreign (a
 * newer version) is left in place, and its backup is not used. With a `cache` (a core
 * `FileReadCache`, one per caller), a file unchanged since its last good read is not read again.
 * Throws a `ValidationError` for invalid options.
 */
export async function loadStateFile<T>(
  path: string,
  format: StateFileFormat<T>,
  options: StateFileOptions = {},
  cache?: FileReadCache<Revisioned<T>>,
): Promise<StateFileLoad<T>> {
  assertString(path, 'loadStateFile', 'path')
  checkFormat(format, 'loadStateFile')
  const opts = checked(options, 'loadStateFile')
  const known = cache?.lookup(path)
  if (known) return { ...known, source: 'file', problems: [], quarantined: [] }
  const load = new StateLoad(path, format, opts)
  const primary = await load.tryOne(path, cache)
  if (primary) return load.result(primary, 'file')
  // A foreign primary (a newer version) is someone else's data: do not resume from a backup.
  if (load.foreign) return load.result(null, 'none')
  const backup = await load.tryOne(opts.backupPath ?? `${path}.bak`)
  return backup ? load.result(backup, 'backup') : load.result(null, 'none')
}

/** One load of a state file and its backup: the problems met and the files moved aside. */
class StateLoad<T> {
  readonly problems: ContextkitError[] = []
  readonly quarantined: string[] = []
  foreign = false

  constructor(
    private readonly path: string,
    private readonly format: StateFileFormat<T>,
    private readonly options: StateFileOptions,
  ) {}

  /** Read `file`: its state, or `null` (a problem noted, a corrupt file moved aside). */
  async tryOne(file: string, cache?: FileReadCache<Revisioned<T>>): Promise<Revisioned<T> | null> {
    const startedMs = Date.now()
    const maxBytes = this.options.maxBytes ?? DEFAULT_MAX_BYTES
    const outcome = await readStateFile(file, this.format, maxBytes)
    if (outcome.kind === 'ok') {
      const found = { state: outcome.state, revision: outcome.revision }
      // a state kept is shared by the loads that hit: frozen
      if (cache?.store(file, outcome.stamp, found, startedMs)) deepFreeze(found)
      return found
    }
    if (outcome.kind === 'bad') await this.#problem(file, outcome)
    return null
  }

  result(found: Revisioned<T> | null, source: StateFileLoad<T>['source']): StateFileLoad<T> {
    const { problems, quarantined } = this
    return {
      state: found?.state ?? null,
      revision: found?.revision ?? 0,
      source,
      problems,
      quarantined,
    }
  }

  async #problem(file: string, outcome: Extract<ReadOutcome<T>, { kind: 'bad' }>): Promise<void> {
    this.problems.push(outcome.error)
    if (outcome.foreign) this.foreign = true
    if (!outcome.corrupt) return
    const { lockPath, lock } = lockOptions(this.path, this.options)
    try {
      const moved = await withFileLock(
        lockPath,
        () => quarantine(file, outcome.bytes, this.format, this.options),
        lock,
        lockError,
      )
      if (moved) this.quarantined.push(moved)
    } catch (error) {
      this.problems.push(
        ContextkitError.isInstance(error) ? error : ioError('quarantine failed', file, error),
      )
    }
  }
}

/**
 * Read-modify-write the state file under its lock. `update` receives the current state (from the
 * file, else from `.bak`, else `null`) and returns the next one, or `null` to write nothing.
 * The next state is written at the current revision + 1 (the format's `encode`, checked by
 * reading it back with `decode`); the previous good file becomes `.bak`; a corrupt file is moved
 * aside first, never overwritten. Resolves what a load now gives (state and revision), or the
 * current one when `update` wrote nothing.
 *
 * @throws ValidationError when `update` returns a state the format refuses (a programming error).
 * @throws the format's own error when the file on disk is foreign (a newer version; left intact).
 * @throws StateConflictError when `expectedRevision` does not match the file.
 * @throws StateLockError when the lock cannot be taken in time.
 * @throws StateIoError when the file system refuses a read or write.
 */
export async function updateStateFile<T>(
  path: string,
  format: StateFileFormat<T>,
  update: (current: T | null) => T | null,
  options: StateFileSaveOptions = {},
): Promise<Revisioned<T> | null> {
  assertString(path, 'updateStateFile', 'path')
  checkFormat(format, 'updateStateFile')
  if (typeof update !== 'function') invalidArgument('updateStateFile', 'update', 'a function')
  const opts = checked(options, 'updateStateFile')
  await makeFolders(path, opts)
  const { lockPath, lock } = lockOptions(path, opts)
  const write = () => writeUpdate(path, format, update, opts, lock.staleMs)
  return withFileLock(lockPath, write, lock, lockError)
}

/** The folders of `path` below its root, made without following a symlink (before the lock). */
async function makeFolders(path: string, options: StateFileOptions): Promise<void> {
  try {
    const { root, rel } = rootOf(path, options)
    await mkdir(root, { recursive: true })
    const relDir = rel.split('/').slice(0, -1).join('/')
    if (relDir !== '') await mkdirWithinRoot(root, relDir)
  } catch (error) {
    if (ValidationError.isInstance(error)) throw error
    throw ioError(`cannot create the folder of ${path}`, path, error)
  }
}

/** The current state (file, else backup) under the lock; a corrupt file is moved aside. */
async function currentUnderLock<T>(
  path: string,
  format: StateFileFormat<T>,
  options: StateFileSaveOptions,
): Promise<{ outcome: ReadOutcome<T>; current: Revisioned<T> | null }> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const outcome = await readStateFile(path, format, maxBytes)
  if (outcome.kind === 'ok') {
    return { outcome, current: { state: outcome.state, revision: outcome.revision } }
  }
  if (outcome.kind === 'bad') {
    // Only damaged content is moved aside; a file we may not judge is never written over.
    if (!outcome.corrupt) throw outcome.error
    await quarantine(path, outcome.bytes, format, options)
  }
  const backup = await readStateFile(options.backupPath ?? `${path}.bak`, format, maxBytes)
  const current = backup.kind === 'ok' ? { state: backup.state, revision: backup.revision } : null
  return { outcome, current }
}

/** The body of {@link updateStateFile}, holding the lock. */
async function writeUpdate<T>(
  path: string,
  format: StateFileFormat<T>,
  update: (current: T | null) => T | null,
  options: StateFileSaveOptions,
  staleMs: number | undefined,
): Promise<Revisioned<T> | null> {
  const backupPath = options.backupPath ?? `${path}.bak`
  // Temp files of writers killed before their rename (only lock holders write them).
  await sweepAbandonedSideFiles([path, backupPath], staleMs)
  const { outcome, current } = await currentUnderLock(path, format, options)
  const revision = current?.revision ?? 0
  const expected = options.expectedRevision
  if (expected !== undefined && expected !== revision) {
    throw new StateConflictError(
      `${path} is at revision ${revision}, expected ${expected}`,
      expected,
      revision,
      {
        recoverable: true,
        details: { path, revision, expected },
      },
    )
  }
  const proposed = update(current?.state ?? null)
  if (proposed === null) return current
  const { text, saved } = loadableText(format, proposed, revision + 1, options, path)
  if (outcome.kind === 'ok') await writeAtomic(backupPath, outcome.bytes, options)
  await writeAtomic(path, text, options)
  return saved
}

/**
 * The file text of `state` at `revision`, checked the way {@link loadStateFile} will read it
 * back: at most `maxBytes` bytes, and a state the format's `decode` accepts at that revision.
 * A save the loader would reject is refused, so it is never written, then quarantined.
 *
 * @throws ValidationError naming `state` when the loader would reject the file.
 */
function loadableText<T>(
  format: StateFileFormat<T>,
  state: T,
  revision: number,
  options: StateFileOptions,
  path: string,
): { text: string; saved: Revisioned<T> } {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const text = stateText(
    format.encode(state, revision, (options.now ?? Date.now)()),
    maxBytes,
    path,
  )
  const size = Buffer.byteLength(text, 'utf8')
  if (size > maxBytes) {
    throw new ValidationError(
      `Invalid state to save: ${size} bytes is larger than maxBytes (${maxBytes}) of ${path}`,
      [{ path: 'state', message: `expected at most ${maxBytes} bytes, got ${size}` }],
      { details: { path, size, maxBytes } },
    )
  }
  const saved = format.decode(JSON.parse(text))
  if (saved.revision !== revision) {
    throw new ValidationError(
      `Invalid state to save: it reads back at revision ${saved.revision}`,
      [{ path: 'state', message: `expected revision ${revision}` }],
    )
  }
  return { text, saved }
}

/**
 * The file text of an encoded state. Its JSON may pass V8's string limit (`JSON.stringify`
 * throws a `RangeError`): that is a state over `maxBytes` too, refused the same way.
 */
function stateText(encoded: unknown, maxBytes: number, path: string): string {
  try {
    return `${JSON.stringify(encoded, null, 2)}\n`
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    const message = `expected at most ${maxBytes} bytes, got more than a string can hold`
    throw new ValidationError(
      `Invalid state to save: larger than maxBytes (${maxBytes}) of ${path}`,
      [{ path: 'state', message }],
      { cause: error, details: { path, maxBytes } },
    )
  }
}

/**
 * Save `state` to `path` atomically (see {@link updateStateFile}) and resolve what a load now
 * gives (the state and its revision).
 */
export async function saveStateFile<T>(
  path: string,
  format: StateFileFormat<T>,
  state: T,
  options: StateFileSaveOptions = {},
): Promise<Revisioned<T>> {
  const saved = await updateStateFile(path, format, () => state, options)
  // update never resolves null when the callback returns a state
  return saved as Revisioned<T>
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
