import { ContextkitError } from '@contextkit/core'

/**
 * The prefill cannot be sent and `onUnsupported` is `'error'`: either the model is known not to
 * accept an assistant prefill (`details.by === 'capability'`, or extended thinking is on:
 * `'thinking'`), or the provider answered the "does not support assistant message prefill" 400
 * (`details.by === 'provider'`, the provider's error is the `cause`). Not recoverable.
 */
export class PrefillRejectedError extends ContextkitError {
  /** The `code` of every error of this class: `prefill_rejected`. */
  static override readonly code: string = 'prefill_rejected'
}

/**
 * A prefill file exists but could not be used (not a regular file, unreadable, larger than
 * `maxBytes`, not valid UTF-8). `details.path` names the file and `details.reason` the failure
 * (an errno code such as `EISDIR` or `EACCES`, or `too-large`, `not-utf8`, `not-a-file`).
 * Recoverable: the prefill turns itself off for that call.
 */
export class PrefillReadError extends ContextkitError {
  /** The `code` of every error of this class: `prefill_read_failed`. */
  static override readonly code: string = 'prefill_read_failed'
}

/**
 * A dynamic prefill module (`PREFILL.mjs` / `PREFILL.js`) failed to load, has no `generate`
 * function, threw, returned something other than a string, or returned more than `maxBytes`
 * (`details.reason: 'too-large'`, the same cap as a prefill file). `details.path` names the
 * module.
 * Recoverable: the prefill turns itself off for that call.
 */
export class PrefillGenerateError extends ContextkitError {
  /** The `code` of every error of this class: `prefill_generate_failed`. */
  static override readonly code: string = 'prefill_generate_failed'
}

/**
 * A dynamic prefill module's `generate` did not settle within `timeoutMs`. `details.path` and
 * `details.timeoutMs` say which and how long. Recoverable: the prefill turns itself off for that
 * call (the generator's `signal` is aborted so it can stop its own work).
 */
export class PrefillTimeoutError extends ContextkitError {
  /** The `code` of every error of this class: `prefill_generate_timeout`. */
  static override readonly code: string = 'prefill_generate_timeout'
}
