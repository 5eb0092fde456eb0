import type { KeptSessionLease, SessionLeaseLostError } from '@contextkit/core'
import { acquireSessionLease, keepSessionLease } from '@contextkit/core/store'
import type { SessionOptions } from '../session/session-run.js'
import { AgentAbortedError, abortError } from './errors.js'

/** What {@link holdSessionLease} needs from the run. */
export interface SessionLeaseInput {
  /** The run's session (none: no lease). */
  session: SessionOptions | undefined
  runId: string
  /** How long to wait for a busy session (`sessionWaitMs`). */
  waitMs: number
  signal: AbortSignal
  /** The lease was lost mid-run (it expired and another run took it): the run must stop. */
  onLost(error: SessionLeaseLostError): void
}

/**
 * Take the session's lease for the run and keep it alive (core's `acquireSessionLease` and
 * `keepSessionLease`): one run per session at a time, across processes and machines. Waits up to
 * `waitMs` for a busy session, then rejects with core's `SessionBusyError` (`session_busy`,
 * naming the holder). `undefined` without a session or when its store keeps no leases.
 *
 * @throws SessionBusyError when the session stayed busy for the whole wait.
 * @throws the abort's error when the run is aborted while it waits.
 */
export async function holdSessionLease(
  input: SessionLeaseInput,
): Promise<KeptSessionLease | undefined> {
  const { session, signal } = input
  if (!session) return undefined
  let lease: Awaited<ReturnType<typeof acquireSessionLease>>
  try {
    lease = await acquireSessionLease(session.store, session.id, {
      runId: input.runId,
      waitMs: input.waitMs,
      signal,
    })
  } catch (error) {
    if (!signal.aborted) throw error
    throw (
      abortError(signal) ??
      new AgentAbortedError(`The run was aborted while waiting for session "${session.id}"`)
    )
  }
  return lease && keepSessionLease(lease, { onLost: input.onLost })
}
