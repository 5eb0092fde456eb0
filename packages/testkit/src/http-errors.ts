/**
 * API-style error responses: `{ type: 'error', error: { type, message }, request_id }`.
 */
import type { ServerResponse } from 'node:http'
import type { WireErrorBody, WireErrorType } from './wire-types.js'

/** The error `type` the API uses for an HTTP status. */
export function errorTypeForStatus(status: number): WireErrorType {
  switch (status) {
    case 400:
      return 'invalid_request_error'
    case 401:
      return 'authentication_error'
    case 402:
      return 'billing_error'
    case 403:
      return 'permission_error'
    case 404:
      return 'not_found_error'
    case 413:
      return 'request_too_large'
    case 429:
      return 'rate_limit_error'
    case 504:
      return 'timeout_error'
    case 529:
      return 'overloaded_error'
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error'
  }
}

/** A default message for a status (`Overloaded`, `Rate limited`, …). */
export function defaultMessageForStatus(status: number): string {
  switch (status) {
    case 429:
      return 'Number of request tokens has exceeded your per-minute rate limit'
    case 529:
      return 'Overloaded'
    case 504:
      return 'Request timed out'
    default:
      return status >= 500 ? 'Internal server error' : 'Invalid request'
  }
}

/** The error body for a request; `details` (e.g. `{ error_code }`) goes in `error.details`. */
export function errorBody(
  type: string,
  message: string,
  requestId: string,
  details?: Record<string, unknown>,
): WireErrorBody {
  return {
    type: 'error',
    error: { type: type as WireErrorType, message, ...(details && { details }) },
    request_id: requestId,
  }
}

/** Sends an error response unless headers are already out (then the connection is dropped). */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  requestId: string,
  extraHeaders: Record<string, string> = {},
  type: string = errorTypeForStatus(status),
  details?: Record<string, unknown>,
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const body = JSON.stringify(errorBody(type, message, requestId, details))
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'request-id': requestId,
    ...extraHeaders,
  })
  res.end(body)
}
