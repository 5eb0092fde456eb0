import { parseWith, SessionIdSchema, type StateStore } from '@contextkit/core'
import { FileStateStoreOptionsSchema } from './options.js'
import type { SelfState } from './self-state.js'
import {
  type LoadResult,
  loadSelfState,
  type StateFileOptions,
  saveSelfState,
} from './state-file.js'

/** Options of {@link fileStateStore}. */
export interface FileStateStoreOptions extends StateFileOptions {
  /**
   * Where an agent's state file is: one path for every agent id (a single-agent workspace), or
   * a function of the agent id (ids are checked first: `[A-Za-z0-9._-]`, no `..`, so
   * `(id) => join(dir, id + '.json')` is safe). Required.
   */
  path: string | ((agentId: string) => string)
  /**
   * Called with the full result of every load: where the state came from (`file`, `backup`,
   * `none`), the problems met (a corrupt file, a newer version) and the files quarantined. The
   * `StateStore` interface has no room for them; the resumption middleware records them as
   * warnings through this. Default: none.
   */
  onLoad?: (result: LoadResult) => void
}

/**
 * The file {@link @contextkit/core#StateStore} of resumption's self-state: {@link loadSelfState} and
 * {@link saveSelfState} behind core's interface, so the resumption middleware can run on it (the
 * default) or on any other store, such as `@contextkit/store-postgres`.
 *
 * The store `revision` is the state file's `revision`. `load` never throws for a bad file (it
 * is quarantined and the `.bak` used, see `onLoad`); `save` with `expectedRevision` is
 * compare-and-set under the file lock and throws {@link StateConflictError}, which is a core
 * `RevisionConflictError`, when another writer saved in between. Throws a `ValidationError` for
 * invalid options.
 */
export function fileStateStore(options: FileStateStoreOptions): StateStore<SelfState> {
  parseWith(FileStateStoreOptionsSchema, options, 'fileStateStore options')
  const { path, onLoad, ...fileOptions } = options
  const pathFor = (agentId: string): string => {
    const id = parseWith(SessionIdSchema, agentId, 'agent id')
    return typeof path === 'string' ? path : path(id)
  }
  return {
    async load(agentId) {
      const result = await loadSelfState(pathFor(agentId), fileOptions)
      onLoad?.(result)
      return result.state ? { state: result.state, revision: result.state.revision } : null
    },
    async save(agentId, state, saveOptions = {}) {
      const saved = await saveSelfState(pathFor(agentId), state, {
        ...fileOptions,
        ...(saveOptions.expectedRevision !== undefined
          ? { expectedRevision: saveOptions.expectedRevision }
          : {}),
      })
      return { revision: saved.revision }
    },
  }
}
