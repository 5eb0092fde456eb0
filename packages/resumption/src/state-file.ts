import { assertString, parseWith } from '@contextkit/core'
import type { FileReadCache } from '@contextkit/core/node'
import {
  loadStateFile,
  type Revisioned,
  type StateFileFormat,
  type StateFileLoad,
  type StateFileOptions,
  type StateFileSaveOptions,
  updateStateFile,
} from '@contextkit/store-files'
import { checkState } from './guards.js'
import { migrateSelfState, type SelfState, SelfStateSchema } from './self-state.js'

// The self-state file: store-files' state file (lock, `.bak`, quarantine of a damaged file,
// compare-and-set, atomic replace inside a root) in resumption's own format, where the state
// carries its `revision` and `updatedAt` itself.

/**
 * The self-state file format for store-files' state files: the file is the `SelfState` itself
 * (its `revision` and `updatedAt` set by each save), read through {@link migrateSelfState} (an
 * older version is brought up to date; a newer one is left in place: `StateVersionError`). Give
 * it to `fileStateStore({ path, format: selfStateFormat })` for a state file per agent.
 */
export const selfStateFormat: StateFileFormat<SelfState> = {
  decode(json) {
    const state = migrateSelfState(json)
    return { state, revision: state.revision }
  },
  encode(state, revision, nowMs) {
    const checked = parseWith(SelfStateSchema, state, 'self-state to save')
    return { ...checked, revision, updatedAt: new Date(nowMs).toISOString() }
  },
}

/** What {@link loadSelfState} found. */
export type LoadResult = Omit<StateFileLoad<SelfState>, 'revision'>

/**
 * Load the state file at `path`. Never throws for a bad file: a corrupt or invalid file is moved
 * aside (`<path>.corrupt-<time>-<id>`) and the `.bak` copy is used instead; when that is unusable
 * too, `state` is `null` and `problems` says why. A file from a newer version is left in place.
 * (store-files' `loadStateFile` with {@link selfStateFormat}.)
 */
export async function loadSelfState(
  path: string,
  options: StateFileOptions = {},
): Promise<LoadResult> {
  assertString(path, 'loadSelfState', 'path')
  const { revision: _revision, ...result } = await loadStateFile(path, selfStateFormat, options)
  return result
}

/**
 * {@link loadSelfState} for the middleware: with its read cache, the last good read of the file
 * is reused while a stat shows the file unchanged. @internal
 */
export function loadSelfStateCached(
  path: string,
  options: StateFileOptions,
  cache: FileReadCache<Revisioned<SelfState>>,
): Promise<StateFileLoad<SelfState>> {
  return loadStateFile(path, selfStateFormat, options, cache)
}

/**
 * Read-modify-write the state file under its lock. `update` receives the current state (from the
 * file, else from `.bak`, else `null`) and returns the next one, or `null` to write nothing.
 * The written state gets `revision` = current + 1 and `updatedAt` = now; the previous good file
 * becomes `.bak`; a corrupt file is moved aside first, never overwritten. (store-files'
 * `updateStateFile` with {@link selfStateFormat}.)
 *
 * @throws ValidationError when `update` returns an invalid state (a programming error).
 * @throws StateVersionError when the file on disk is from a newer version (it is left intact).
 * @throws StateConflictError (store-files) when `expectedRevision` does not match the file.
 * @throws StateLockError (store-files) when the lock cannot be taken in time.
 * @throws StateIoError (store-files) when the file system refuses a read or write.
 */
export async function updateSelfState(
  path: string,
  update: (current: SelfState | null) => SelfState | null,
  options: StateFileSaveOptions = {},
): Promise<SelfState | null> {
  assertString(path, 'updateSelfState', 'path')
  const saved = await updateStateFile(path, selfStateFormat, update, options)
  return saved?.state ?? null
}

/**
 * Save `state` to `path` atomically (see {@link updateSelfState}) and return what was written.
 */
export async function saveSelfState(
  path: string,
  state: SelfState,
  options: StateFileSaveOptions = {},
): Promise<SelfState> {
  assertString(path, 'saveSelfState', 'path')
  checkState(state, 'saveSelfState')
  const saved = await updateSelfState(path, () => state, options)
  // update never returns null when the callback returns a state
  return saved as SelfState
}
