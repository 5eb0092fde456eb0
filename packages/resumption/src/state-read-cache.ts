import { type Stats, statSync } from 'node:fs'
import type { SelfState } from './self-state.js'

/**
 * A state file changed closer than this to the start of its read is not remembered: a write in
 * the same tick of the file system's clock (coarse on some file systems) could leave every
 * `stat` field as it was.
 */
export const STATE_RACY_MS = 2000

interface Entry {
  path: string
  state: SelfState
  dev: number
  ino: number
  size: number
  mtimeMs: number
  ctimeMs: number
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

  /** `racyMs` (default {@link STATE_RACY_MS}) is for tests. */
  constructor(racyMs: number = STATE_RACY_MS) {
    this.#racyMs = racyMs
  }

  /** The state read from `path` before, if `path` still names that unchanged file. */
  lookup(path: string): SelfState | undefined {
    const entry = this.#entry
    if (entry === undefined || entry.path !== path) return undefined
    let st: Stats | undefined
    try {
      st = statSync(path, { throwIfNoEntry: false })
    } catch {
      st = undefined
    }
    if (
      st === undefined ||
      !st.isFile() ||
      st.dev !== entry.dev ||
      st.ino !== entry.ino ||
      st.size !== entry.size ||
      st.mtimeMs !== entry.mtimeMs ||
      st.ctimeMs !== entry.ctimeMs
    ) {
      this.#entry = undefined
      return undefined
    }
    return entry.state
  }

  /**
   * Keep the state read from `path`: `st` is the `fstat` of the handle it was read from and
   * `startedMs` the clock before that read (see {@link STATE_RACY_MS}). Returns the state to use
   * (frozen when kept).
   */
  store(path: string, st: Stats, state: SelfState, startedMs: number): SelfState {
    if (startedMs - Math.max(st.mtimeMs, st.ctimeMs) < this.#racyMs) {
      this.#entry = undefined
      return state
    }
    const frozen = deepFreeze(state)
    const { dev, ino, size, mtimeMs, ctimeMs } = st
    this.#entry = { path, state: frozen, dev, ino, size, mtimeMs, ctimeMs }
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
