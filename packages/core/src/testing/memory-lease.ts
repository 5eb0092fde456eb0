// Test support: the lease contract kept in a `Map`, from the contract alone (see
// memory-stores.ts). Not exported.
import { randomUUID } from 'node:crypto'
import { parseWith } from '../errors.js'
import { assertSessionId } from '../session-id.js'
import {
  DEFAULT_SESSION_LEASE_TTL_MS,
  type SessionLeaseAttempt,
  type SessionLeaseHolder,
  SessionLeaseLostError,
  type SessionLeaseRequest,
} from '../session-lease.js'
import { SessionLeaseRequestSchema } from '../session-lease-schema.js'

/** `acquireLease` over a `Map` of holders: expiry by this process's clock only. */
export function memoryLeases(): (
  id: string,
  request: SessionLeaseRequest,
) => Promise<SessionLeaseAttempt> {
  const held = new Map<string, SessionLeaseHolder>()
  const current = (id: string, token: string) => held.get(id)?.token === token
  return async (id, request) => {
    assertSessionId(id, 'memory.acquireLease')
    const r = parseWith(SessionLeaseRequestSchema, request, 'lease request')
    const now = Date.now()
    const holder = held.get(id)
    if (holder && Date.parse(holder.expiresAt) > now)
      return { acquired: false, holder: { ...holder } }
    const ttlMs = r.ttlMs ?? DEFAULT_SESSION_LEASE_TTL_MS
    const stamp = (ms: number) => new Date(ms).toISOString()
    const mine: SessionLeaseHolder = {
      runId: r.runId,
      host: 'memory',
      pid: 0,
      start: null,
      token: randomUUID(),
      acquiredAt: stamp(now),
      renewedAt: stamp(now),
      expiresAt: stamp(now + ttlMs),
    }
    held.set(id, mine)
    const lease = {
      sessionId: id,
      holder: { ...mine },
      ttlMs,
      async renew() {
        if (!current(id, mine.token)) throw new SessionLeaseLostError(`lease of ${id} lost`)
        const at = Date.now()
        Object.assign(mine, { renewedAt: stamp(at), expiresAt: stamp(at + ttlMs) })
        lease.holder = { ...mine }
      },
      async release() {
        if (!current(id, mine.token)) return false
        held.delete(id)
        return true
      },
    }
    return { acquired: true, lease }
  }
}
