import { ContextkitError } from '@contextkit/core'

/**
 * The state file was written by a newer version of this package. It is left untouched (never
 * quarantined, never overwritten). Recoverable. (The state file's other failures are
 * store-files' `StateCorruptError`, `StateLockError`, `StateConflictError` and `StateIoError`.)
 */
export class StateVersionError extends ContextkitError {
  /** The `code` of every error of this class: `resumption_state_version`. */
  static override readonly code: string = 'resumption_state_version'
}
