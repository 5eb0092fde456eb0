import {
  FILE_STAMP_RACY_MS,
  type FileStamp,
  sameFileStamp,
  stampIsRacy,
  statStamp,
} from '@contextkit/core/node'
import type { SelfState } from './self-state.js'

interface Entry {
  path: string
  state: SelfState
  stamp: FileStamp
}

/**
 * The last state file a middleware read, reused while `stat` of its path shows the very file it
 * was read from (device, inode, size, modification and change times), so an unchanged state costs
 * one `stat` instead of open, `fstat`, read, close, JSON parse and schema check. Any write of the
 * file (the store replaces it by rename: a new inode) or any other change misses, and the file is
 * read again. The state kept is frozen: it is shared by the runs that hit. @internal
 */
export class StateReadCache {
  #entry: Entry | undefined
  readonly #racyMs: number

  /** `racyMs` (default core's `FILE_STAMP_RACY_MS`) is for tests. */
  constructor(racyMs: number = FILE_STAMP_RACY_MS) {
    this.#racyMs = racyMs
  }

  /** The state read from `path` before, if `path` still names that unchanged file. */
  lookup(path: string): SelfState | undefined {
    const entry = this.#entry
    if (entry === undefined || entry.path !== path) return undefined
    const now = statStamp(path)
    if (now === undefined || now.kind !== 'file' || !sameFileStamp(now, entry.stamp)) {
      this.#entry = undefined
      return undefined
    }
    return entry.state
  }

  /**
   * Keep the state read from `path`: `stamp` is the stamp of the handle it was read from (core's
   * `readTextFile` gives it) and `startedMs` the clock before that read (a stamp changed within
   * the racy window is not kept: core's `stampIsRacy`). Returns the state to use (frozen when
   * kept).
   */
  store(path: string, stamp: FileStamp, state: SelfState, startedMs: number): SelfState {
    if (stampIsRacy(stamp, startedMs, this.#racyMs)) {
      this.#entry = undefined
      return state
    }
    const frozen = deepFreeze(state)
    this.#entry = { path, state: frozen, stamp }
    return frozen
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
