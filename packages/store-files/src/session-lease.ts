import { randomUUID } from 'node:crypto'
import {
  assertSessionId,
  errnoCode,
  parseWith,
  type SessionLease,
  type SessionLeaseAttempt,
  type SessionLeaseHolder,
  SessionLeaseLostError,
  type SessionLeaseRequest,
} from '@contextkit/core'
import {
  openWithinRoot,
  ownerAlive,
  processIdentity,
  replaceWithinRoot,
  unlinkWithinRoot,
} from '@contextkit/core/node'
import { SessionLeaseRequestSchema } from '@contextkit/core/schemas'
import { describeLeaseHolder } from '@contextkit/core/store'
import { ioError, type Within } from './session-files.js'

// The JSONL store's session lease: a file `<id>.jsonl.lease` beside the session, holding its
// holder (host, pid, process start time, run id, token) and when it was last renewed. Every
// read-modify-write of it happens under the session's lock file (core's `withFileLock`, the
// lock appends take), so two acquirers never both see it free.

/** File name suffix of a session's lease file: `<id>.jsonl.lease`. */
export const SESSION_LEASE_SUFFIX = '.jsonl.lease'

/** What the lease file holds. */
interface LeaseRecord extends SessionLeaseHolder {
  ttlMs: number
}

/** What the lease needs of the store. */
export interface LeaseFiles {
  within: Within
  /** Run `fn` holding the lock file of session `id`. */
  locked<T>(id: string, fn: () => Promise<T>): Promise<T>
  /** Make sure the store's directory exists. */
  ensureDir(): Promise<void>
  /** Lease lifetime when the request names none, ms. */
  leaseTtlMs: number
}

const relOf = (f: LeaseFiles, id: string) => `${f.within.file(id)}.lease`

/** The lease file's record; `null` when there is none or it cannot be read (a crash's leftover). */
async function readLease(f: LeaseFiles, id: string): Promise<LeaseRecord | null> {
  let text: string
  try {
    const { handle } = await openWithinRoot(f.within.root, relOf(f, id))
    try {
      text = await handle.readFile('utf8')
    } finally {
      await handle.close().catch(() => {})
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw ioError(`cannot read the lease of session ${id}`, error, relOf(f, id), 'lease')
  }
  try {
    const value = JSON.parse(text) as LeaseRecord
    const ok =
      typeof value?.token === 'string' &&
      typeof value.runId === 'string' &&
      typeof value.pid === 'number' &&
      typeof value.ttlMs === 'number' &&
      Number.isFinite(Date.parse(value.renewedAt))
    return ok ? value : null
  } catch {
    return null
  }
}

async function writeLease(f: LeaseFiles, id: string, record: LeaseRecord): Promise<void> {
  try {
    // rename-atomic; no fsync: a lease lost with the power is a lease whose holder is gone
    await replaceWithinRoot(f.within.root, relOf(f, id), JSON.stringify(record), { fsync: false })
  } catch (error) {
    throw ioError(`cannot write the lease of session ${id}`, error, relOf(f, id), 'lease')
  }
}

/** When this process first saw each renewal (token and `renewedAt`): a clock ahead still ages. */
const firstSeen = new Map<string, number>()

function ageOf(record: LeaseRecord, now: number): number {
  const key = `${record.token}\0${record.renewedAt}`
  let seen = firstSeen.get(key)
  if (seen === undefined) {
    seen = now
    firstSeen.set(key, seen)
    if (firstSeen.size > 512) firstSeen.delete(firstSeen.keys().next().value as string)
  }
  return now - Math.min(Date.parse(record.renewedAt), seen)
}

/**
 * Whether a lease is over: its holder's process is gone (same host: pid and start time), or it
 * was not renewed for its `ttlMs` (a hung holder, or one on another host).
 */
async function isOver(record: LeaseRecord): Promise<boolean> {
  if ((await ownerAlive(record)) === false) return true
  return ageOf(record, Date.now()) > record.ttlMs
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * One attempt at the lease of session `id` (core's `SessionStore.acquireLease`): taken when
 * there is no lease file, or its lease is over ({@link isOver}); else the holder is returned.
 */
export async function acquireFileLease(
  f: LeaseFiles,
  id: string,
  request: SessionLeaseRequest,
): Promise<SessionLeaseAttempt> {
  assertSessionId(id, 'jsonlSessionStore.acquireLease')
  const r = parseWith(SessionLeaseRequestSchema, request, 'jsonlSessionStore.acquireLease request')
  const me = await processIdentity()
  await f.ensureDir()
  return f.locked(id, async (): Promise<SessionLeaseAttempt> => {
    const current = await readLease(f, id)
    if (current !== null && !(await isOver(current))) {
      const { ttlMs: _, ...holder } = current
      return { acquired: false, holder }
    }
    const now = Date.now()
    const ttlMs = r.ttlMs ?? f.leaseTtlMs
    const record: LeaseRecord = {
      runId: r.runId,
      ...me,
      token: randomUUID(),
      acquiredAt: iso(now),
      renewedAt: iso(now),
      expiresAt: iso(now + ttlMs),
      ttlMs,
    }
    await writeLease(f, id, record)
    return { acquired: true, lease: fileLease(f, id, record) }
  })
}

/** The held lease over its file: renew and release check the token under the session's lock. */
function fileLease(f: LeaseFiles, id: string, record: LeaseRecord): SessionLease {
  let mine = record
  const holderOf = ({ ttlMs: _, ...holder }: LeaseRecord) => holder
  return {
    sessionId: id,
    ttlMs: record.ttlMs,
    get holder() {
      return holderOf(mine)
    },
    renew: () =>
      f.locked(id, async () => {
        const current = await readLease(f, id)
        if (current?.token !== mine.token) throw lost(id, current)
        const now = Date.now()
        const next = { ...mine, renewedAt: iso(now), expiresAt: iso(now + mine.ttlMs) }
        await writeLease(f, id, next)
        mine = next
      }),
    release: () =>
      f.locked(id, async () => {
        const current = await readLease(f, id)
        if (current?.token !== mine.token) return false
        try {
          return await unlinkWithinRoot(f.within.root, relOf(f, id))
        } catch (error) {
          throw ioError(`cannot release the lease of session ${id}`, error, relOf(f, id), 'lease')
        }
      }),
  }
}

function lost(id: string, now: LeaseRecord | null): SessionLeaseLostError {
  const by = now === null ? 'no one holds it now' : `${describeLeaseHolder(now)} holds it now`
  return new SessionLeaseLostError(`the lease of session "${id}" was lost: ${by}`, {
    details: { sessionId: id, holder: now === null ? null : { ...now } },
  })
}
