import { ContextkitError } from './errors.js'

// The session lease: one run per session at a time, across processes and machines. A store that
// can keep one implements `SessionStore.acquireLease` (one attempt, never waits); the waiting,
// the heartbeat and the errors are here, once, for every store (session-lease-hold.ts).

/**
 * How long a lease lives without a heartbeat unless the request says otherwise: 30000 ms. A
 * holder renews it every third of that ({@link keepSessionLease}), so a live holder never loses
 * it to a busy event loop or a slow store, and a crashed one on another machine is taken over
 * at most this long after its last heartbeat.
 */
export const DEFAULT_SESSION_LEASE_TTL_MS = 30_000

/** Longest accepted lease lifetime: 2^31 − 1 ms (Node's longest timer). */
export const MAX_SESSION_LEASE_TTL_MS = 2_147_483_647

/** Who holds a session's lease, as the store keeps it. */
export interface SessionLeaseHolder {
  /** The run holding it (agent-loop's `runId`). */
  runId: string
  /** The host name of the holder's machine (`'unknown'` where the store cannot tell). */
  host: string
  /** The holder's process id (`0` where the store cannot tell). */
  pid: number
  /** When the holder's process started (core/node's `processStartTime`), `null` if unknown. */
  start: string | null
  /** A random id of this acquisition: two holders never share it. */
  token: string
  /** When the lease was taken (ISO 8601). */
  acquiredAt: string
  /** When it was last taken or renewed (ISO 8601, the store's clock). */
  renewedAt: string
  /** When it expires unless renewed (ISO 8601, the store's clock). */
  expiresAt: string
}

/** What {@link SessionLeaseStore.acquireLease} is asked for. */
export interface SessionLeaseRequest {
  /** The run that will hold the lease (named to whoever waits for it). */
  runId: string
  /**
   * How long the lease lives without a renewal, 1 to 2^31 − 1 ms. Default: the store's own
   * (`DEFAULT_SESSION_LEASE_TTL_MS` unless the store was told otherwise).
   */
  ttlMs?: number
}

/** A lease held: renew it while the run goes on, release it when the run ends. */
export interface SessionLease {
  /** The session it is for. */
  readonly sessionId: string
  /** The holder as stored when it was taken (or last renewed). */
  readonly holder: SessionLeaseHolder
  /** Its lifetime without a renewal, ms. */
  readonly ttlMs: number
  /**
   * Extend the lease by `ttlMs` from now.
   *
   * @throws SessionLeaseLostError when the lease is no longer this holder's (it expired and
   *   another run took it, or the session was deleted).
   */
  renew(): Promise<void>
  /** Give the lease up; `false` when it was no longer this holder's. Safe to call twice. */
  release(): Promise<boolean>
}

/** One attempt at a lease: taken, or held by someone else (who). */
export type SessionLeaseAttempt =
  | { acquired: true; lease: SessionLease }
  | { acquired: false; holder: SessionLeaseHolder }

/**
 * What a store implements to keep one run per session at a time (`SessionStore.acquireLease`).
 *
 * - `acquireLease` tries once and never waits: it takes the lease when the session has none,
 *   when the holder's lease expired (no renewal for its `ttlMs`), or when the store can tell the
 *   holder's process is gone (a holder on the same host, by pid and process start time); else it
 *   says who holds it. Two acquirers never both get it.
 * - A lease is the session's, not the entries': appends are not checked against it. Whoever
 *   runs the loop on a session takes it first (agent-loop's `runAgent` does).
 * - `sessionLeaseConformance` in `@contextkit/core/testing` holds a store to this.
 */
export interface SessionLeaseStore {
  /**
   * Try once to take the lease of session `id` for `request.runId`.
   *
   * @throws ValidationError for a bad id or request.
   */
  acquireLease(id: string, request: SessionLeaseRequest): Promise<SessionLeaseAttempt>
}

/**
 * The session's lease stayed held by a live run for the whole wait. Code `session_busy`,
 * recoverable (try again later). `details`: `{ sessionId, waitedMs, holder }`.
 */
export class SessionBusyError extends ContextkitError {
  /** The `code` of every error of this class: `session_busy`. */
  static override readonly code: string = 'session_busy'
}

/**
 * A lease is no longer its holder's: its heartbeat stopped long enough for it to expire and
 * another run took it (or the session went away). Code `session_lease_lost`.
 */
export class SessionLeaseLostError extends ContextkitError {
  /** The `code` of every error of this class: `session_lease_lost`. */
  static override readonly code: string = 'session_lease_lost'
}

/** `run R (host H, pid P)`: a holder named for a person. */
export function describeLeaseHolder(holder: SessionLeaseHolder): string {
  const h = typeof holder === 'object' && holder !== null ? holder : ({} as SessionLeaseHolder)
  return `run ${String(h.runId)} (host ${String(h.host)}, pid ${String(h.pid)})`
}

/** Whether `store` keeps leases (has `acquireLease`). */
export function hasSessionLeases<T extends object>(store: T): store is T & SessionLeaseStore {
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof (store as Partial<SessionLeaseStore>).acquireLease === 'function'
  )
}
