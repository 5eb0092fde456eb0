import { ContextkitError, RevisionConflictError } from '@contextkit/core'

/**
 * The state file (or its `.bak`) is not valid JSON, not UTF-8, too large, or does not match the
 * {@link SelfStateSchema}. Recoverable: resumption turns itself off for the call.
 */
export class StateCorruptError extends ContextkitError {
  /** The `code` of every error of this class: `resumption_state_corrupt`. */
  static override readonly code: string = 'resumption_state_corrupt'
}

/**
 * The state file was written by a newer version of this package. It is left untouched (never
 * quarantined, never overwritten). Recoverable.
 */
export class StateVersionError extends ContextkitError {
  /** The `code` of every error of this class: `resumption_state_version`. */
  static override readonly code: string = 'resumption_state_version'
}

/** The state file lock could not be taken within `lockTimeoutMs`. Recoverable. */
export class StateLockError extends ContextkitError {
  /** The `code` of every error of this class: `resumption_state_lock`. */
  static override readonly code: string = 'resumption_state_lock'
}

/**
 * A save with `expectedRevision` found another revision on disk: someone else saved in between.
 * Recoverable: reload, merge, save again. A core `RevisionConflictError` (the `StateStore`
 * contract's conflict), so `RevisionConflictError.isInstance` matches it too.
 */
export class StateConflictError extends RevisionConflictError {
  /** The `code` of every error of this class: `resumption_state_conflict`. */
  static override readonly code: string = 'resumption_state_conflict'
}

/** Reading or writing the state file failed at the file-system level (permissions, disk full). */
export class StateIoError extends ContextkitError {
  /** The `code` of every error of this class: `resumption_state_io`. */
  static override readonly code: string = 'resumption_state_io'
}
