import { ContextkitError } from '@contextkit/core'

/**
 * A context file could not be read: missing, a directory, unreadable, or failed mid-read.
 * `details.path` names the file; `cause` holds the system error (its `code`, e.g. `ENOENT`).
 * Recoverable: the middleware records a warning and leaves the turn unchanged.
 */
export class ContextFileReadError extends ContextkitError {
  static override readonly code: string = 'context_file_unreadable'
}

/**
 * The path is not a regular file (a FIFO, a device such as `/dev/zero`, a socket). Refused
 * up front, since reading one could block or never end. Recoverable.
 */
export class ContextFileTypeError extends ContextkitError {
  static override readonly code: string = 'context_file_not_regular'
}

/** {@link analyzeFile} was aborted through its `signal`. `cause` is the signal's reason. */
export class AnalysisAbortedError extends ContextkitError {
  static override readonly code: string = 'analysis_aborted'
}
