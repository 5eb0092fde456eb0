import { ContextkitError, RevisionConflictError } from '@contextkit/core'

/**
 * The lock file of a session could not be taken within `lockTimeoutMs`: another writer held it
 * the whole time and it never looked abandoned. Nothing was written.
 */
export class SessionLockError extends ContextkitError {
  /** The `code` of every error of this class: `store_files_session_lock`. */
  static override readonly code: string = 'store_files_session_lock'
}

/**
 * Reading or writing a session failed at the file-system level (permissions, disk full, a
 * directory where the file should be). An append that fails this way wrote nothing: a partly
 * written batch is cut off again before the error is thrown.
 */
export class SessionIoError extends ContextkitError {
  /** The `code` of every error of this class: `store_files_session_io`. */
  static override readonly code: string = 'store_files_session_io'
}

/**
 * A state file (or its `.bak`) is not UTF-8, not JSON, larger than `maxBytes`, or not a state
 * its format accepts. Recoverable: the caller goes on without the state (a damaged file is moved
 * aside; one over `maxBytes` is left in place).
 */
export class StateCorruptError extends ContextkitError {
  /** The `code` of every error of this class: `store_files_state_corrupt`. */
  static override readonly code: string = 'store_files_state_corrupt'
}

/** A state file's lock could not be taken within `lockTimeoutMs`. Recoverable. */
export class StateLockError extends ContextkitError {
  /** The `code` of every error of this class: `store_files_state_lock`. */
  static override readonly code: string = 'store_files_state_lock'
}

/**
 * A save with `expectedRevision` found another revision on disk: someone else saved in between.
 * Recoverable: reload, merge, save again. A core `RevisionConflictError` (the `StateStore`
 * contract's conflict), so `RevisionConflictError.isInstance` matches it too.
 */
export class StateConflictError extends RevisionConflictError {
  /** The `code` of every error of this class: `store_files_state_conflict`. */
  static override readonly code: string = 'store_files_state_conflict'
}

/** Reading or writing a state file failed at the file-system level (permissions, disk full). */
export class StateIoError extends ContextkitError {
  /** The `code` of every error of this class: `store_files_state_io`. */
  static override readonly code: string = 'store_files_state_io'
}
