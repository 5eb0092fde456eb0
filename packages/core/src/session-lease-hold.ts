import { lazy, optional, strictObject } from './composite-checks.js'
import { ContextkitError, invalidArgument, parseWith } from './errors.js'
import { assertSessionId } from './session-id.js'
import {
  describeLeaseHolder,
  hasSessionLeases,
  MAX_SESSION_LEASE_TTL_MS,
  SessionBusyError,
  type SessionLease,
  type SessionLeaseHolder,
  SessionLeaseLostError,
} from './session-lease.js'
import { custom, number, string } from './value-checks.js'

// Waiting for a session's lease and keeping it: what every caller of a lease store shares.

/** How long a second run waits for a session's lease before `session_busy`: 60000 ms. */
export const DEFAULT_SESSION_WAIT_MS = 60_000

/**
 * The check of {@link AcquireSessionLeaseOptions}: `SessionLeaseRequestSchema`'s fields, then
 * the wait and the signal.
 */
const AcquireOptionsCheck = /* @__PURE__ */ lazy(() =>
  strictObject({
    runId: string({ min: 1, max: 200 }),
    ttlMs: optional(number({ int: true, min: 1, max: MAX_SESSION_LEASE_TTL_MS })),
    waitMs: optional(number({ int: true, min: 0, max: MAX_SESSION_LEASE_TTL_MS })),
    signal: optional(custom<AbortSignal>(isSignal, 'an AbortSignal', ['object'])),
  }),
)

/** Options of {@link acquireSessionLease}. */
export interface AcquireSessionLeaseOptions {
  /** The run that will hold the lease. */
  runId: string
  /** The lease's lifetime without a renewal, ms. Default: the store's. */
  ttlMs?: number
  /** Wait at most this long for a busy session, ms (0: one attempt). Default `60000`. */
  waitMs?: number
  /** Stop waiting when aborted (rejects with the signal's reason). */
  signal?: AbortSignal
}

function isSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof Reflect.get(value, 'aborted') === 'boolean'
  )
}

/** Sleep `ms`, or less when `signal` aborts (resolves either way). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

/**
 * Take the lease of session `id` in `store`, waiting up to `waitMs` while another run holds it
 * (attempts back off from 20 ms to 500 ms). Resolves `undefined` when the store keeps no leases
 * (it has no `acquireLease`).
 *
 * @throws SessionBusyError (`session_busy`) when the lease stayed held for the whole wait; its
 *   message names the holder (run id, host, pid).
 * @throws the signal's reason when `signal` aborts the wait.
 * @throws ValidationError for a bad id or option.
 */
export async function acquireSessionLease(
  store: object,
  id: string,
  options: AcquireSessionLeaseOptions,
): Promise<SessionLease | undefined> {
  const fn = 'acquireSessionLease'
  if (typeof store !== 'object' || store === null) invalidArgument(fn, 'store', 'a store', store)
  assertSessionId(id, fn)
  const o = parseWith(AcquireOptionsCheck, options, `${fn} options`)
  if (!hasSessionLeases(store)) return undefined
  const request = { runId: o.runId, ...(o.ttlMs === undefined ? {} : { ttlMs: o.ttlMs }) }
  const waitMs = o.waitMs ?? DEFAULT_SESSION_WAIT_MS
  const started = Date.now()
  for (let attempt = 0; ; attempt++) {
    o.signal?.throwIfAborted()
    const tried = await store.acquireLease(id, request)
    if (tried.acquired) return tried.lease
    const waited = Date.now() - started
    if (waited >= waitMs) throw busyError(id, tried.holder, waited)
    await pause(Math.min(500, 20 * 1.5 ** attempt, waitMs - waited), o.signal)
  }
}

function busyError(
  sessionId: string,
  holder: SessionLeaseHolder,
  waitedMs: number,
): SessionBusyError {
  return new SessionBusyError(
    `session "${sessionId}" is busy: ${describeLeaseHolder(holder)} holds it since ` +
      `${holder.acquiredAt} (gave up after waiting ${waitedMs} ms; its lease expires at ` +
      `${holder.expiresAt} unless renewed)`,
    { recoverable: true, details: { sessionId, waitedMs, holder: { ...holder } } },
  )
}

/** Options of {@link keepSessionLease}. */
export interface KeepSessionLeaseOptions {
  /**
   * Called once when the lease is lost: a renewal was refused (another run took it), or no
   * renewal succeeded for the lease's whole `ttlMs`. The holder should stop writing.
   */
  onLost(error: SessionLeaseLostError): void
  /** Renew every this many ms. Default: a third of the lease's `ttlMs`. */
  everyMs?: number
}

/** A lease being kept alive by {@link keepSessionLease}. */
export interface KeptSessionLease {
  /** The lease. */
  readonly lease: SessionLease
  /** Stop the heartbeat and release the lease (`false` when it was no longer ours). Never throws. */
  stop(): Promise<boolean>
}

/**
 * Keep `lease` alive: renew it every `everyMs` until {@link KeptSessionLease.stop}. A renewal
 * that fails for another reason (the database is briefly down) is tried again on the next beat;
 * once no renewal succeeded for `ttlMs`, or one is refused, `onLost` is called and the heartbeat
 * ends. The timer does not keep the process alive.
 *
 * @throws ValidationError for a bad lease or option.
 */
export function keepSessionLease(
  lease: SessionLease,
  options: KeepSessionLeaseOptions,
): KeptSessionLease {
  const fn = 'keepSessionLease'
  if (typeof lease?.renew !== 'function' || typeof lease.release !== 'function') {
    invalidArgument(fn, 'lease', 'a SessionLease', lease)
  }
  if (typeof options?.onLost !== 'function') invalidArgument(fn, 'options.onLost', 'a function')
  const every = options.everyMs ?? Math.max(1, Math.floor(lease.ttlMs / 3))
  if (!Number.isSafeInteger(every) || every < 1) {
    invalidArgument(fn, 'options.everyMs', 'a positive integer', options.everyMs)
  }
  let stopped = false
  let lastRenewed = Date.now()
  let timer: ReturnType<typeof setTimeout> | undefined
  let beat: Promise<void> = Promise.resolve()
  const lose = (error: SessionLeaseLostError) => {
    stopped = true
    options.onLost(error)
  }
  const renewOnce = async () => {
    try {
      await lease.renew()
      lastRenewed = Date.now()
    } catch (error) {
      if (SessionLeaseLostError.isInstance(error)) return lose(error)
      if (Date.now() - lastRenewed >= lease.ttlMs) return lose(unrenewed(lease, error))
    }
    schedule()
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      beat = renewOnce()
    }, every)
    ;(timer as { unref?: () => void }).unref?.()
  }
  schedule()
  return {
    lease,
    async stop() {
      stopped = true
      clearTimeout(timer)
      await beat
      return lease.release().catch(() => false)
    },
  }
}

function unrenewed(lease: SessionLease, cause: unknown): SessionLeaseLostError {
  const reason = ContextkitError.isInstance(cause) ? cause.message : String(cause)
  return new SessionLeaseLostError(
    `the lease of session "${lease.sessionId}" could not be renewed for ${lease.ttlMs} ms ` +
      `(last failure: ${reason}); another run may have taken it`,
    { cause, details: { sessionId: lease.sessionId, ttlMs: lease.ttlMs } },
  )
}
