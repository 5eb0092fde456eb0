import { ContextkitError } from '@contextkit/core'

/**
 * The lock file of a session could not be taken within `lockTimeoutMs`: another writer held it
 * the whole time and it never looked abandoned. Nothing was written.
 */
export class SessionLockError extends ContextkitError {
  static override readonly code: string = 'agent_loop_session_lock'
}

/**
 * Reading or writing a session failed at the file-system level (permissions, disk full, a
 * directory where the file should be). An append that fails this way wrote nothing: a partly
 * written batch is cut off again before the error is thrown.
 */
export class SessionIoError extends ContextkitError {
  static override readonly code: string = 'agent_loop_session_io'
}

/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`, …), if it has one. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? code : undefined
}
