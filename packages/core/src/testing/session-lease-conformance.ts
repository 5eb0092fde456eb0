import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { invalidArgument } from '../errors.js'
import {
  type SessionLease,
  type SessionLeaseAttempt,
  SessionLeaseLostError,
  type SessionLeaseStore,
} from '../session-lease.js'
import type { SessionStore } from '../session-store.js'
import { freshId } from './session-fixtures.js'
import type { MakeSessionStore } from './session-store-conformance.js'
import {
  type CheckOf,
  checksOf,
  rejectsValidation,
  runChecks,
  type StoreCheck,
  type StoreConformanceReport,
} from './store-checks.js'

type LeaseStore = SessionStore & SessionLeaseStore

/** A fresh id for this check, remembered so it is deleted afterwards. */
function idFor(ids: string[], label: string): string {
  const id = freshId(label)
  ids.push(id)
  return id
}

function taken(attempt: SessionLeaseAttempt, what: string): SessionLease {
  assert.ok(
    attempt.acquired,
    `${what} must take the lease, but it is held by ${JSON.stringify(attempt)}`,
  )
  return attempt.lease
}

function refused(attempt: SessionLeaseAttempt, runId: string, what: string): void {
  if (attempt.acquired) {
    assert.fail(`${what} must be refused while run ${runId} holds the lease, but it was granted`)
  }
  assert.equal(attempt.holder.runId, runId, `${what}: the refusal must name the holder's run`)
}

/** Attempt until taken, at most `ms` (a lease whose heartbeat stopped must expire). */
async function takenWithin(store: LeaseStore, id: string, runId: string, ms: number) {
  const deadline = Date.now() + ms
  for (;;) {
    const attempt = await store.acquireLease(id, { runId })
    if (attempt.acquired) return attempt.lease
    if (Date.now() > deadline) assert.fail(`an expired lease was not taken over in ${ms} ms`)
    await sleep(25)
  }
}

async function rejectsLost(what: string, action: () => Promise<unknown>): Promise<void> {
  const outcome = await action().then(
    () => 'it resolved',
    (error: unknown) => error,
  )
  assert.ok(
    SessionLeaseLostError.isInstance(outcome),
    `${what} must reject with session_lease_lost`,
  )
}

const CHECKS: ReadonlyArray<readonly [string, CheckOf<LeaseStore>]> = [
  [
    'a free session is leased; a second run is refused and told who holds it',
    async (store, ids) => {
      const id = idFor(ids, 'lease-busy')
      const lease = taken(await store.acquireLease(id, { runId: 'run-a' }), 'the first run')
      assert.equal(lease.sessionId, id)
      assert.equal(lease.holder.runId, 'run-a')
      assert.ok(lease.holder.host.length > 0, 'the holder names a host')
      assert.ok(Number.isSafeInteger(lease.holder.pid), 'the holder names a pid')
      const second = await store.acquireLease(id, { runId: 'run-b', ttlMs: 60_000 })
      refused(second, 'run-a', 'a second run')
      if (!second.acquired) {
        const { runId, host, pid, token } = second.holder
        assert.deepEqual(
          { runId, host, pid, token },
          {
            runId: 'run-a',
            host: lease.holder.host,
            pid: lease.holder.pid,
            token: lease.holder.token,
          },
        )
      }
      await lease.release()
    },
  ],
  [
    'a released lease is free at once; release twice is false the second time',
    async (store, ids) => {
      const id = idFor(ids, 'lease-release')
      const lease = taken(await store.acquireLease(id, { runId: 'run-a' }), 'the first run')
      assert.equal(await lease.release(), true, 'release of a held lease is true')
      assert.equal(await lease.release(), false, 'a second release is false')
      const next = taken(await store.acquireLease(id, { runId: 'run-b' }), 'the next run')
      await rejectsLost('renew of a released lease', () => lease.renew())
      await next.release()
    },
  ],
  [
    'renew moves the expiry forward, and others see it',
    async (store, ids) => {
      const id = idFor(ids, 'lease-renew')
      const lease = taken(await store.acquireLease(id, { runId: 'run-a', ttlMs: 60_000 }), 'a run')
      const before = Date.parse(lease.holder.expiresAt)
      await sleep(20)
      await lease.renew()
      const after = Date.parse(lease.holder.expiresAt)
      assert.ok(after > before, `renew must move expiresAt forward (${before} → ${after})`)
      const seen = await store.acquireLease(id, { runId: 'run-b' })
      refused(seen, 'run-a', 'a run after the renewal')
      if (!seen.acquired) assert.equal(Date.parse(seen.holder.expiresAt), after)
      await lease.release()
    },
  ],
  [
    'a lease whose heartbeat stopped expires: another run takes it, the old holder lost it',
    async (store, ids) => {
      const id = idFor(ids, 'lease-expiry')
      const old = taken(await store.acquireLease(id, { runId: 'run-a', ttlMs: 150 }), 'a run')
      const next = await takenWithin(store, id, 'run-b', 15_000)
      assert.equal(next.holder.runId, 'run-b')
      await rejectsLost('renew of an expired lease taken by another run', () => old.renew())
      assert.equal(await old.release(), false, "the old holder's release is false")
      refused(await store.acquireLease(id, { runId: 'run-c' }), 'run-b', 'a third run')
      await next.release()
    },
  ],
  [
    'concurrent attempts on a free session: exactly one is granted',
    async (store, ids) => {
      const id = idFor(ids, 'lease-race')
      const attempts = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.acquireLease(id, { runId: `run-${i}` })),
      )
      const granted = attempts.flatMap((a) => (a.acquired ? [a.lease] : []))
      assert.equal(granted.length, 1, `exactly one of 8 attempts is granted, not ${granted.length}`)
      const winner = granted[0] as SessionLease
      for (const a of attempts) if (!a.acquired) assert.equal(a.holder.token, winner.holder.token)
      await winner.release()
    },
  ],
  [
    'leases of two sessions are independent',
    async (store, ids) => {
      const one = taken(await store.acquireLease(idFor(ids, 'lease-one'), { runId: 'a' }), 'one')
      const two = taken(await store.acquireLease(idFor(ids, 'lease-two'), { runId: 'b' }), 'two')
      await one.release()
      await two.release()
    },
  ],
  [
    'a bad session id or request is a ValidationError',
    async (store) => {
      await rejectsValidation('acquireLease("../x")', () =>
        store.acquireLease('../x', { runId: 'a' }),
      )
      await rejectsValidation('acquireLease with an empty runId', () =>
        store.acquireLease(freshId('lease-bad'), { runId: '' }),
      )
      await rejectsValidation('acquireLease with ttlMs 0', () =>
        store.acquireLease(freshId('lease-bad'), { runId: 'a', ttlMs: 0 }),
      )
      await rejectsValidation('acquireLease with an unknown key', () =>
        store.acquireLease(freshId('lease-bad'), { runId: 'a', owner: 'x' } as never),
      )
    },
  ],
]

/**
 * The lease checks a `SessionStore` with `acquireLease` must pass (one run per session at a
 * time), one per behaviour, each usable as its own test:
 *
 * ```ts
 * for (const check of sessionLeaseChecks(() => myStore())) test(check.name, check.run)
 * ```
 *
 * A store without `acquireLease` fails every check. One check waits for a 150 ms lease to expire
 * (polling, up to 15 s), so a slow machine makes it slower, never wrong.
 */
export function sessionLeaseChecks(makeStore: MakeSessionStore): StoreCheck[] {
  if (typeof makeStore !== 'function') {
    invalidArgument('sessionLeaseChecks', 'makeStore', 'a function returning a store', makeStore)
  }
  const make = async (): Promise<LeaseStore> => {
    const store = await makeStore()
    assert.equal(typeof store.acquireLease, 'function', 'the store must have acquireLease')
    return store as LeaseStore
  }
  return checksOf('sessionLeaseChecks', make, CHECKS, (store, id) => store.delete(id))
}

/**
 * Run every check of {@link sessionLeaseChecks}, one after another: resolves with their names
 * when all pass, rejects with a `StoreConformanceError` naming every failed one.
 */
export async function sessionLeaseConformance(
  makeStore: MakeSessionStore,
): Promise<StoreConformanceReport> {
  return runChecks(sessionLeaseChecks(makeStore), 'session lease')
}
