/**
 * A refused request: the status, error type, message and details the API would answer with.
 */
import type { Exchange } from './exchange.js'
import type { WireErrorType } from './wire-types.js'

/** Why a request is refused, shaped like the API's error response. */
export interface RequestProblem {
  /** HTTP status (400 unless said otherwise). */
  status: number
  /** The API's message, e.g. `max_tokens: Field required`. */
  message: string
  /** Error `type`. Default: from the status (`invalid_request_error` for 400). */
  type?: WireErrorType
  /** `error.details`, e.g. `{ error_code: 'thread_not_found' }`. */
  details?: Record<string, unknown>
}

/** A 400 `invalid_request_error`. */
export function badRequest(message: string, details?: Record<string, unknown>): RequestProblem {
  return { status: 400, message, ...(details && { details }) }
}

/** Answers `x` with `problem`. */
export function sendProblem(x: Exchange, problem: RequestProblem): void {
  x.error(problem.status, problem.message, {}, problem.type, problem.details)
}
