import { RevisionConflictError, type StateStore, ValidationError } from '@contextkit/core'
import type { FileReadCache } from '@contextkit/core/node'
import { fileStateStore, type Revisioned, type StateFileOptions } from '@contextkit/store-files'
import { migrateSelfState, type SelfState } from './self-state.js'
import { loadSelfStateCached, selfStateFormat } from './state-file.js'

/** Where the middleware's state comes from, for its trace. */
export type StateSource = 'file' | 'backup' | 'store' | 'none'

/** @internal What {@link loadState} found. */
export interface LoadedState {
  state: SelfState | null
  /** Store revision of `state` (`0`: nothing stored). */
  revision: number
  source: StateSource
}

/** @internal How the middleware reaches its state: a given store, or the state file. */
export interface StateAccess {
  store?: StateStore<SelfState> | undefined
  agentId: string
  /** The state file, when no store was given. */
  path: () => string
  fileOptions: StateFileOptions
  /** Where problems go (the run's warnings). */
  warn: (problem: unknown) => void
  /** The middleware's last read of the state file, reused while the file is unchanged. */
  cache: FileReadCache<Revisioned<SelfState>>
}

/**
 * Load and validate the state. A stored value that is not a valid self-state is reported and
 * treated as absent (its revision is kept, so a later save replaces it by compare-and-set); a
 * value from a newer version throws (`StateVersionError`): it must not be overwritten.
 */
export async function loadState(access: StateAccess): Promise<LoadedState> {
  if (!access.store) {
    // the state file, read directly: its options were checked with the middleware's, and a
    // state read from it is already validated (and migrated) once
    const result = await loadSelfStateCached(access.path(), access.fileOptions, access.cache)
    for (const problem of result.problems) access.warn(problem)
    return { state: result.state, revision: result.revision, source: result.source }
  }
  const loaded = await access.store.load(access.agentId)
  if (!loaded) return { state: null, revision: 0, source: 'none' }
  try {
    return { state: migrateSelfState(loaded.state), revision: loaded.revision, source: 'store' }
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error
    access.warn(error)
    return { state: null, revision: loaded.revision, source: 'none' }
  }
}

/** @internal What {@link updateState} saved. */
export interface UpdatedState {
  state: SelfState
  revision: number
  /** The first compare-and-set save met another writer's revision and was redone on top of it. */
  retried: boolean
}

/**
 * Read-modify-write with compare-and-set: load, `update`, save with the loaded revision. When
 * another writer saved in between (`RevisionConflictError`), re-read and redo `update` on top
 * of their state once, so neither write is lost; a second conflict is thrown for the caller to
 * record as a warning (nothing is overwritten).
 */
export async function updateState(
  access: StateAccess,
  update: (current: SelfState | null) => SelfState,
  now: () => number,
): Promise<UpdatedState> {
  for (let attempt = 1; ; attempt++) {
    const current = await loadState(access)
    const next: SelfState = {
      ...update(current.state),
      revision: current.revision + 1,
      updatedAt: new Date(now()).toISOString(),
    }
    const store =
      access.store ??
      fileStateStore({ ...access.fileOptions, path: access.path(), format: selfStateFormat })
    try {
      const { revision } = await store.save(access.agentId, next, {
        expectedRevision: current.revision,
      })
      return { state: { ...next, revision }, revision, retried: attempt > 1 }
    } catch (error) {
      if (attempt >= 2 || !RevisionConflictError.isInstance(error)) throw error
    }
  }
}
