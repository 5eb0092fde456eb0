import { ContextkitError } from '@contextkit/core'

/**
 * A context file could not be read: missing, unreadable, or failed mid-read.
 * `details.path` names the file, `details.errno` the system error code (e.g. `ENOENT`); `cause`
 * holds the system error. Recoverable: the middleware records a warning and leaves the turn
 * unchanged. Code `context_metadata_file_unreadable` (before 0.1: `context_file_unreadable`).
 */
export class ContextFileReadError extends ContextkitError {
  /** The `code` of every error of this class: `context_metadata_file_unreadable`. */
  static override readonly code: string = 'context_metadata_file_unreadable'
}

/**
 * The path is not a regular file (a directory, a FIFO, a device such as `/dev/zero`, a socket).
 * Refused up front, since reading one could block or never end. Recoverable. Code
 * `context_metadata_file_not_regular` (before 0.1: `context_file_not_regular`).
 */
export class ContextFileTypeError extends ContextkitError {
  /** The `code` of every error of this class: `context_metadata_file_not_regular`. */
  static override readonly code: string = 'context_metadata_file_not_regular'
}

/**
 * {@link analyzeFile} was aborted through its `signal`. `cause` is the signal's reason. Code
 * `context_metadata_aborted` (before 0.1: `analysis_aborted`).
 */
export class AnalysisAbortedError extends ContextkitError {
  /** The `code` of every error of this class: `context_metadata_aborted`. */
  static override readonly code: string = 'context_metadata_aborted'
}
