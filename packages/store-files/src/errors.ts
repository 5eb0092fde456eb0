import { AgentLoopError } from '../errors.js'

/**
 * The lock file of a session could not be taken within `lockTimeoutMs`: another writer held it
 * the whole time and it never looked abandoned. Nothing was written.
 */
export class SessionLockError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_session_lock`. */
  static override readonly code: string = 'agent_loop_session_lock'
}

/**
 * Reading or writing a session failed at the file-system level (permissions, disk full, a
 * directory where the file should be). An append that fails this way wrote nothing: a partly
 * written batch is cut off again before the error is thrown.
 */
export class SessionIoError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_session_io`. */
  static override readonly code: string = 'agent_loop_session_io'
}

// The session store's modules import it from here; the one definition is core's.
export { errnoCode } from '@contextkit/core'
