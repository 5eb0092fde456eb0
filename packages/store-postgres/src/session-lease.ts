import {
  assertSessionId,
  parseWith,
  randomId,
  type SessionLease,
  type SessionLeaseAttempt,
  type SessionLeaseHolder,
  SessionLeaseLostError,
  type SessionLeaseRequest,
} from '@contextkit/core'
import { SessionLeaseRequestSchema } from '@contextkit/core/schemas'
import { describeLeaseHolder } from '@contextkit/core/store'
import * as z from 'zod'
import { integerOf, type PostgresDb, runQuery } from './db.js'
import { StoreDataError } from './errors.js'
import type { Migration } from './schema.js'

// The Postgres store's session lease: one row per leased session in `<table>_leases`, holding
// its holder and an expiry on the server's clock. Every change is one statement (an upsert that
// takes the row only when it is free or expired, an update or a delete checked by token), so it
// works through any pooler and on PGlite. Why a row and not an advisory lock: see the README.

/** Suffix of the lease table: `<table>_leases`. */
export const LEASES_SUFFIX = '_leases'

/** Schema versions of the lease table (migration target `leases:<session table>`). */
export function leaseMigrations(leases: string): Migration[] {
  return [
    {
      version: 1,
      description: 'session leases',
      statements: [
        `CREATE TABLE IF NOT EXISTS ${leases} (
          session_id text COLLATE "C" PRIMARY KEY,
          token text NOT NULL,
          run_id text NOT NULL,
          host text NOT NULL,
          pid integer NOT NULL,
          start text,
          ttl_ms integer NOT NULL CHECK (ttl_ms > 0),
          acquired_at timestamptz NOT NULL,
          renewed_at timestamptz NOT NULL,
          expires_at timestamptz NOT NULL
        )`,
      ],
    },
  ]
}

/** Who this store's leases name as their holder. */
export interface LeaseHolderIdentity {
  /** Host name (core/node's `processIdentity()` gives it). */
  host: string
  /** Process id. */
  pid: number
  /** Process start time (`processStartTime`), `null` when unknown. */
  start?: string | null
}

/** Zod schema of {@link LeaseHolderIdentity}. */
export const LeaseHolderIdentitySchema = z.strictObject({
  host: z.string().min(1).max(255),
  pid: z.number().int().min(0).max(2_147_483_647),
  start: z.string().max(200).nullable().optional(),
})

/** Tells whether a holder's process still runs: core/node's `ownerAlive`. */
export type HolderAlive = (holder: SessionLeaseHolder) => Promise<boolean | 'unknown'>

/** What a store's leases need. */
export interface LeaseContext {
  db: PostgresDb
  /** The quoted lease table. */
  leases: string
  ttlMs: number
  identity: { host: string; pid: number; start: string | null }
  holderAlive: HolderAlive | undefined
}

const COLUMNS = `token, run_id, host, pid, start, ttl_ms::text AS ttl_ms,
  floor(extract(epoch FROM acquired_at) * 1000)::bigint::text AS acquired_ms,
  floor(extract(epoch FROM renewed_at) * 1000)::bigint::text AS renewed_ms,
  floor(extract(epoch FROM expires_at) * 1000)::bigint::text AS expires_ms`

function leaseSql(leases: string) {
  // $9: the token of a holder judged gone (its row may be taken although not expired)
  const take = `INSERT INTO ${leases} AS l
      (session_id, token, run_id, host, pid, start, ttl_ms, acquired_at, renewed_at, expires_at)
    VALUES ($1, $2, $3, $4, $5::integer, $6, $7::integer, now(), now(),
      now() + $7::integer * interval '1 millisecond')
    ON CONFLICT (session_id) DO UPDATE SET token = EXCLUDED.token, run_id = EXCLUDED.run_id,
      host = EXCLUDED.host, pid = EXCLUDED.pid, start = EXCLUDED.start, ttl_ms = EXCLUDED.ttl_ms,
      acquired_at = EXCLUDED.acquired_at, renewed_at = EXCLUDED.renewed_at,
      expires_at = EXCLUDED.expires_at
    WHERE l.expires_at <= now() OR l.token = $8
    RETURNING ${COLUMNS}`
  const holder = `SELECT ${COLUMNS} FROM ${leases} WHERE session_id = $1`
  const renew = `UPDATE ${leases} SET renewed_at = now(),
      expires_at = now() + ttl_ms * interval '1 millisecond'
    WHERE session_id = $1 AND token = $2 RETURNING ${COLUMNS}`
  const release = `DELETE FROM ${leases} WHERE session_id = $1 AND token = $2 RETURNING token`
  return { take, holder, renew, release }
}

const iso = (value: unknown, name: string, op: string) =>
  new Date(integerOf(value, name, op)).toISOString()

function holderOf(row: Record<string, unknown>, op: string): SessionLeaseHolder {
  return {
    runId: String(row.run_id),
    host: String(row.host),
    pid: integerOf(row.pid, 'pid', op),
    start: row.start === null || row.start === undefined ? null : String(row.start),
    token: String(row.token),
    acquiredAt: iso(row.acquired_ms, 'acquired_ms', op),
    renewedAt: iso(row.renewed_ms, 'renewed_ms', op),
    expiresAt: iso(row.expires_ms, 'expires_ms', op),
  }
}

/**
 * One attempt at the lease of session `id`: the row is taken when there is none, when it
 * expired (server clock), or when `holderAlive` says its holder's process is gone.
 */
export async function acquirePostgresLease(
  c: LeaseContext,
  id: string,
  request: SessionLeaseRequest,
): Promise<SessionLeaseAttempt> {
  const op = 'postgresSessionStore.acquireLease'
  assertSessionId(id, op)
  const r = parseWith(SessionLeaseRequestSchema, request, `${op} request`)
  const sql = leaseSql(c.leases)
  const ttlMs = r.ttlMs ?? c.ttlMs
  const token = randomId()
  const { host, pid, start } = c.identity
  const attempt = (gone: string) =>
    runQuery(c.db, op, sql.take, [id, token, r.runId, host, pid, start, ttlMs, gone])
  let gone = ''
  for (let tries = 0; tries < 5; tries++) {
    const taken = await attempt(gone)
    if (taken[0] !== undefined) {
      return { acquired: true, lease: postgresLease(c, id, holderOf(taken[0], op), ttlMs) }
    }
    const row = (await runQuery(c.db, op, sql.holder, [id]))[0]
    if (row === undefined) continue // released in between: try again
    const holder = holderOf(row, op)
    if (gone === holder.token || (await c.holderAlive?.(holder)) !== false) {
      return { acquired: false, holder }
    }
    gone = holder.token // its process is gone: take it over, if it is still that holder's
  }
  throw new StoreDataError(`${op}: the lease of session "${id}" changed hands on every attempt`, {
    details: { id },
  })
}

function postgresLease(
  c: LeaseContext,
  id: string,
  first: SessionLeaseHolder,
  ttlMs: number,
): SessionLease {
  const sql = leaseSql(c.leases)
  let mine = first
  return {
    sessionId: id,
    ttlMs,
    get holder() {
      return { ...mine }
    },
    async renew() {
      const op = 'postgresSessionStore.renewLease'
      const rows = await runQuery(c.db, op, sql.renew, [id, mine.token])
      if (rows[0] === undefined) {
        const now = (await runQuery(c.db, op, sql.holder, [id]))[0]
        const by = now
          ? `${describeLeaseHolder(holderOf(now, op))} holds it now`
          : 'no one holds it now'
        throw new SessionLeaseLostError(`the lease of session "${id}" was lost: ${by}`, {
          details: { sessionId: id },
        })
      }
      mine = holderOf(rows[0], op)
    },
    async release() {
      const op = 'postgresSessionStore.releaseLease'
      return (await runQuery(c.db, op, sql.release, [id, mine.token])).length > 0
    },
  }
}
