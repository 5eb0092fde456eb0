import { ContextkitError } from '@contextkit/core'

/** Base class of the inspector's own errors (`code` prefixed `inspector_`). */
export class InspectorError extends ContextkitError {
  /** The `code` of every error of this class: `inspector_error`. */
  static override readonly code: string = 'inspector_error'
}

/**
 * The inspector could not start its server (the port is taken, the address cannot be bound).
 * `details` carries the host and port asked for.
 */
export class InspectorListenError extends InspectorError {
  /** The `code` of every error of this class: `inspector_listen`. */
  static override readonly code: string = 'inspector_listen'
}

/** The page's built files are missing (a source checkout that was never built). */
export class InspectorAssetsError extends InspectorError {
  /** The `code` of every error of this class: `inspector_assets`. */
  static override readonly code: string = 'inspector_assets'
}

/**
 * The `changes` option failed when the inspector subscribed to it: it threw (its error is the
 * `cause`), or it returned something other than its unsubscribe function.
 */
export class InspectorChangesError extends InspectorError {
  /** The `code` of every error of this class: `inspector_changes`. */
  static override readonly code: string = 'inspector_changes'
}
