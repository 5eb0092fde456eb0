import { ownerAlive, processIdentity } from '@contextkit/core/node'
import { sessionLeaseChecks } from '@contextkit/core/testing'
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deadPid } from '../../../test-utils/processes.js'
import { postgresSessionStore } from './session-store.js'
import { type RealDatabase, realDatabase, realServer, realServerNote } from './test-server.js'
import { migratedPglite, socketServer } from './test-support.js'

let db: PGlite
let server: Awaited<ReturnType<typeof socketServer>>
let client: pg.Client
beforeAll(async () => {
  db = await migratedPglite()
  server = await socketServer(db)
  client = new pg.Client({ connectionString: server.url })
  await client.connect()
}, 60_000)
afterAll(async () => {
  await client.end()
  await server.stop()
  await db.close()
})

describe('session leases on PGlite', () => {
  for (const check of sessionLeaseChecks(() => postgresSessionStore(db))) {
    test(check.name, check.run, 60_000)
  }
})

describe('session leases through pg', () => {
  for (const check of sessionLeaseChecks(() => postgresSessionStore(client))) {
    test(check.name, check.run, 60_000)
  }
})

describe.skipIf(!('url' in realServer))(
  `session leases on a real PostgreSQL server${realServerNote}`,
  () => {
    let database: RealDatabase
    let pool: pg.Pool
    beforeAll(async () => {
      database = await realDatabase('leases')
      pool = new pg.Pool({ connectionString: database.url, max: 4 })
    }, 60_000)
    afterAll(async () => {
      await pool?.end()
      await database?.drop()
    })
    for (const check of sessionLeaseChecks(() => postgresSessionStore(pool))) {
      test(check.name, check.run, 60_000)
    }
  },
)

describe('postgresSessionStore leases: holders', () => {
  test('the holder named is the leaseHolder given', async () => {
    const me = await processIdentity()
    const store = postgresSessionStore(db, { leaseHolder: me })
    const attempt = await store.acquireLease('named', { runId: 'run_a' })
    expect(attempt).toMatchObject({ acquired: true, lease: { holder: { ...me, runId: 'run_a' } } })
    const busy = await store.acquireLease('named', { runId: 'run_b' })
    expect(busy).toMatchObject({ acquired: false, holder: { host: me.host, pid: me.pid } })
    if (attempt.acquired) await attempt.lease.release()
  })

  test('with holderAlive, a holder whose process is gone loses its lease at once', async () => {
    const me = await processIdentity()
    const gone = postgresSessionStore(db, {
      leaseHolder: { ...me, pid: await deadPid(), start: null },
    })
    const held = await gone.acquireLease('gone', { runId: 'run_dead', ttlMs: 600_000 })
    expect(held.acquired).toBe(true)
    const plain = postgresSessionStore(db)
    expect((await plain.acquireLease('gone', { runId: 'run_b' })).acquired).toBe(false)
    const judging = postgresSessionStore(db, { holderAlive: ownerAlive })
    const next = await judging.acquireLease('gone', { runId: 'run_c' })
    expect(next).toMatchObject({ acquired: true, lease: { holder: { runId: 'run_c' } } })
    if (next.acquired) await next.lease.release()
  })

  test('expiry is on the server clock: a row expired there is taken, whatever this clock says', async () => {
    const store = postgresSessionStore(db)
    const held = await store.acquireLease('clock', { runId: 'run_a', ttlMs: 600_000 })
    expect(held.acquired).toBe(true)
    await db.query(
      "UPDATE contextkit_sessions_leases SET expires_at = now() - interval '1 second' WHERE session_id = 'clock'",
    )
    const next = await store.acquireLease('clock', { runId: 'run_b' })
    expect(next.acquired).toBe(true)
    if (held.acquired) expect(await held.lease.release()).toBe(false)
    if (next.acquired) await next.lease.release()
  })

  test('bad lease options are refused', () => {
    expect(() => postgresSessionStore(db, { leaseTtlMs: 0 })).toThrow(/leaseTtlMs/)
    expect(() => postgresSessionStore(db, { leaseHolder: { host: '', pid: 1 } })).toThrow(/host/)
    expect(() => postgresSessionStore(db, { holderAlive: 1 as never })).toThrow(/holderAlive/)
  })
})
