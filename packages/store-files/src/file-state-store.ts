import { parseWith, type StateStore } from '@contextkit/core'
import { SessionIdSchema } from '@contextkit/core/schemas'
import * as z from 'zod'
import {
  loadStateFile,
  type StateFileLoad,
  type StateFileOptions,
  StateFileOptionsSchema,
  saveStateFile,
} from './state-file.js'
import { jsonStateFormat, type StateFileFormat } from './state-format.js'

/** Options of {@link fileStateStore}. */
export interface FileStateStoreOptions<T> extends StateFileOptions {
  /**
   * Where an agent's state file is: one path for every agent id (a single-agent workspace), or
   * a function of the agent id (ids are checked first: `[A-Za-z0-9._-]`, no `..`, so
   * `(id) => join(dir, id + '.json')` is safe). Required.
   */
  path: string | ((agentId: string) => string)
  /**
   * How a file's JSON becomes a state and back. Default {@link jsonStateFormat}() (any JSON
   * value in a `{ revision, updatedAt, state }` envelope); resumption's `selfStateFormat` keeps
   * its state file as it always was.
   */
  format?: StateFileFormat<T>
  /**
   * Called with the full result of every load: where the state came from (`file`, `backup`,
   * `none`), the problems met (a corrupt file, a newer version) and the files quarantined. The
   * `StateStore` interface has no room for them; the resumption middleware records them as
   * warnings through this. Default: none.
   */
  onLoad?: (result: StateFileLoad<T>) => void
}

const fn = <F>() => z.custom<F>((v) => typeof v === 'function', 'expected a function')

const OptionsSchema = StateFileOptionsSchema.extend({
  path: z.union([z.string().min(1), fn<(agentId: string) => string>()]),
  format: z
    .custom<StateFileFormat<unknown>>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof (v as { decode?: unknown }).decode === 'function',
      'expected a StateFileFormat',
    )
    .optional(),
  onLoad: fn<(result: StateFileLoad<unknown>) => void>().optional(),
})

/**
 * A core `StateStore` in files: one state file per agent (see {@link loadStateFile} and
 * {@link updateStateFile}: a lock per file, the previous good copy in `.bak`, a corrupt file
 * moved aside, atomic replace confined to `root`), so the resumption middleware, or anything
 * that keeps a state per agent, can run on one machine's disk.
 *
 * The store `revision` is the file's. `load` never throws for a bad file (it is quarantined and
 * the `.bak` used, see `onLoad`); `save` with `expectedRevision` is compare-and-set under the
 * file lock and throws {@link StateConflictError}, which is a core `RevisionConflictError`,
 * when another writer saved in between. Throws a `ValidationError` for invalid options.
 */
export function fileStateStore<T = unknown>(options: FileStateStoreOptions<T>): StateStore<T> {
  parseWith(OptionsSchema, options, 'fileStateStore options')
  const { path, onLoad, format = jsonStateFormat<T>(), ...fileOptions } = options
  const pathFor = (agentId: string): string => {
    const id = parseWith(SessionIdSchema, agentId, 'agent id')
    return typeof path === 'string' ? path : path(id)
  }
  return {
    async load(agentId) {
      const result = await loadStateFile(pathFor(agentId), format, fileOptions)
      onLoad?.(result)
      return result.state === null ? null : { state: result.state, revision: result.revision }
    },
    async save(agentId, state, saveOptions = {}) {
      const { expectedRevision } = saveOptions
      const saved = await saveStateFile(pathFor(agentId), format, state, {
        ...fileOptions,
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
      })
      return { revision: saved.revision }
    },
  }
}
