import { describe, expect, test } from 'vitest'
import { SessionBusyError, type SessionLease, SessionLeaseLostError } from './session-lease.js'
import { acquireSessionLease, keepSessionLease } from './session-lease-hold.js'
import type { SessionStore } from './session-store.js'
import { memorySessionStore } from './testing/memory-stores.js'

/** A memory store whose `acquireLease` calls are counted, with a hook before each. */
function counted(before: (n: number) => Promise<void> | void = () => {}) {
  const inner = memorySessionStore()
  let attempts = 0
  const store: SessionStore = {
    ...inner,
    async acquireLease(id, request) {
      await before(++attempts)
      return (inner.acquireLease as NonNullable<SessionStore['acquireLease']>)(id, request)
    },
  }
  return { store, attempts: () => attempts }
}

describe('acquireSessionLease', () => {
  test('a busy session ends the wait with session_busy naming the holder', async () => {
    const { store } = counted()
    const first = await acquireSessionLease(store, 's1', { runId: 'run_first' })
    const error = await acquireSessionLease(store, 's1', { runId: 'run_second', waitMs: 60 }).catch(
      (e: unknown) => e,
    )
    expect(SessionBusyError.isInstance(error)).toBe(true)
    expect((error as SessionBusyError).code).toBe('session_busy')
    expect((error as Error).message).toContain('run run_first (host memory, pid 0)')
    expect((error as SessionBusyError).details).toMatchObject({ sessionId: 's1' })
    await first?.release()
  })

  test('a lease released during the wait is taken', async () => {
    let holder: SessionLease | undefined
    const { store, attempts } = counted(async (n) => {
      if (n === 3) await holder?.release() // the holder ends while the second run waits
    })
    holder = await acquireSessionLease(store, 's2', { runId: 'a' })
    const next = await acquireSessionLease(store, 's2', { runId: 'b', waitMs: 60_000 })
    expect(next?.holder.runId).toBe('b')
    expect(attempts()).toBe(3)
  })

  test('an abort ends the wait with the signal reason', async () => {
    const { store } = counted()
    await acquireSessionLease(store, 's3', { runId: 'a' })
    const controller = new AbortController()
    const reason = new Error('stop')
    const waiting = acquireSessionLease(store, 's3', {
      runId: 'b',
      waitMs: 60_000,
      signal: controller.signal,
    })
    controller.abort(reason)
    await expect(waiting).rejects.toBe(reason)
  })

  test('a store without leases resolves undefined; bad options are ValidationErrors', async () => {
    const { acquireLease: _, ...plain } = memorySessionStore()
    expect(await acquireSessionLease(plain, 's4', { runId: 'a' })).toBeUndefined()
    await expect(acquireSessionLease(plain, '../x', { runId: 'a' })).rejects.toThrow(/session id/i)
    await expect(
      acquireSessionLease(plain, 's4', { runId: 'a', wait: 1 } as never),
    ).rejects.toThrow(/wait/)
  })
})

describe('keepSessionLease', () => {
  test('renews until stopped, then releases', async () => {
    const { store } = counted()
    const lease = (await acquireSessionLease(store, 'k1', {
      runId: 'a',
      ttlMs: 60_000,
    })) as SessionLease
    let renewals = 0
    const renew = lease.renew.bind(lease)
    const watched: SessionLease = Object.assign(Object.create(lease), {
      renew: async () => {
        renewals++
        await renew()
      },
    })
    const kept = keepSessionLease(watched, { everyMs: 2, onLost: () => {} })
    while (renewals < 3) await new Promise((r) => setTimeout(r, 2))
    expect(await kept.stop()).toBe(true)
    const after = renewals
    await new Promise((r) => setTimeout(r, 20))
    expect(renewals).toBe(after)
    expect((await acquireSessionLease(store, 'k1', { runId: 'b', waitMs: 0 }))?.holder.runId).toBe(
      'b',
    )
  })

  test('a refused renewal calls onLost once and stops the heartbeat', async () => {
    const { store } = counted()
    const lease = (await acquireSessionLease(store, 'k2', {
      runId: 'a',
      ttlMs: 60_000,
    })) as SessionLease
    await lease.release() // as if it expired and another run took it
    const lost = await new Promise<unknown>((resolve) => {
      keepSessionLease(lease, { everyMs: 2, onLost: resolve })
    })
    expect(SessionLeaseLostError.isInstance(lost)).toBe(true)
  })
})
