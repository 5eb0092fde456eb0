import { ContextkitError, type ContextkitErrorOptions } from './errors.js'

/** A stored value and the revision it was saved at (1 for the first save). */
export interface StoredState<T> {
  /** The state as last saved. */
  state: T
  /** Bumped by every save; `save` with `expectedRevision` compares against it. */
  revision: number
}

/** Options of {@link StateStore.save}. */
export interface StateSaveOptions {
  /**
   * Compare-and-set: the save succeeds only when the stored revision is this one (`0` when
   * nothing is stored yet), else it fails with {@link RevisionConflictError}. Omit it for
   * last-writer-wins.
   */
  expectedRevision?: number
}

/**
 * Per-agent state that must survive the process (e.g. resumption's self-state), shared by
 * every worker that serves the agent. Implemented by resumption's file store (the default) and
 * by `@contextkit/store-postgres`.
 *
 * - `load` of an unknown agent resolves `null`.
 * - `save` returns the new revision (previous + 1); with `expectedRevision` it is atomic
 *   compare-and-set, so two writers racing on one revision see exactly one success and one
 *   {@link RevisionConflictError}: no update is ever lost silently.
 */
export interface StateStore<T = unknown> {
  /** The agent's state and its revision, or `null` when nothing was saved yet. */
  load(agentId: string): Promise<StoredState<T> | null>
  /**
   * Save the agent's state and resolve its new revision; with `expectedRevision`, only if the
   * stored revision still is that one (a `RevisionConflictError` otherwise).
   */
  save(agentId: string, state: T, options?: StateSaveOptions): Promise<{ revision: number }>
}

/** A compare-and-set save found another revision than the one it expected. */
export class RevisionConflictError extends ContextkitError {
  /** The `code` of every error of this class: `revision_conflict`. */
  static override readonly code: string = 'revision_conflict'
  /** The revision the caller expected. */
  readonly expectedRevision: number
  /** The revision actually stored (`0`: none), when the store could tell. */
  readonly actualRevision: number | undefined

  constructor(
    message: string,
    expectedRevision: number,
    actualRevision?: number,
    options: ContextkitErrorOptions = {},
  ) {
    super(message, {
      ...options,
      details: { expectedRevision, actualRevision, ...options?.details },
    })
    this.expectedRevision = expectedRevision
    this.actualRevision = actualRevision
  }
}
