import { sessionResumeChecks } from '@contextkit/agent-loop/testing'
import { RevisionConflictError } from '@contextkit/core'
import {
  sessionStoreChecks,
  sessionStoreConformance,
  stateStoreChecks,
} from '@contextkit/core/testing'
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { postgresSessionStore } from './session-store.js'
import { postgresStateStore } from './state-store.js'
import { type RealDatabase, realDatabase, realServer, realServerNote } from './test-server.js'
import { migratedPglite, socketServer, turnEntries } from './test-support.js'

// core's SessionStore and StateStore conformance checks, on PGlite in-process and through the
// real `pg` driver (a single Client: the pool path is covered by pg-driver and multi-process
// tests), and on a real PostgreSQL server through a pool (each connection its own session);
// agent-loop's resume checks (the loop finishing runs from this store's log).
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

describe('sessionStoreConformance on PGlite', () => {
  for (const check of sessionStoreChecks(() => postgresSessionStore(db))) {
    test(check.name, check.run, 60_000)
  }
})

test('sessionStoreConformance through pg', async () => {
  const report = await sessionStoreConformance(() => postgresSessionStore(client))
  expect(report.passed.length).toBeGreaterThan(0)
}, 120_000)

describe.skipIf(!('url' in realServer))(
  `sessionStoreConformance on a real PostgreSQL server${realServerNote}`,
  () => {
    let database: RealDatabase
    let pool: pg.Pool
    beforeAll(async () => {
      database = await realDatabase('conformance')
      pool = new pg.Pool({ connectionString: database.url, max: 4 })
    }, 60_000)
    afterAll(async () => {
      await pool?.end()
      await database?.drop()
    })
    for (const check of sessionStoreChecks(() => postgresSessionStore(pool))) {
      test(check.name, check.run, 60_000)
    }

    test('appends racing over several connections stay gapless, in one order', async () => {
      const store = postgresSessionStore(pool)
      const range = Array.from({ length: 40 }, (_, i) => i + 1)
      await Promise.all(range.map((i) => store.append('race', turnEntries(i, `r${i}-`))))
      const { rows } = await pool.query<{ seq: number }>(
        'SELECT seq::int AS seq FROM contextkit_sessions WHERE session_id = $1 ORDER BY seq',
        ['race'],
      )
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 160 }, (_, i) => i + 1))
    }, 60_000)

    test('compare-and-set saves racing over several connections lose no update', async () => {
      const store = postgresStateStore<{ count: number }>(pool)
      const bump = async () => {
        for (;;) {
          const current = await store.load('race-agent')
          try {
            const next = { count: (current?.state.count ?? 0) + 1 }
            return await store.save('race-agent', next, {
              expectedRevision: current?.revision ?? 0,
            })
          } catch (error) {
            if (!RevisionConflictError.isInstance(error)) throw error
          }
        }
      }
      await Promise.all(Array.from({ length: 20 }, bump))
      expect(await store.load('race-agent')).toEqual({ state: { count: 20 }, revision: 20 })
    }, 60_000)
  },
)

describe('stateStoreConformance on PGlite', () => {
  for (const check of stateStoreChecks(() => postgresStateStore(db))) {
    test(check.name, check.run, 60_000)
  }
})

describe('sessionResumeChecks (agent-loop) on PGlite', () => {
  for (const check of sessionResumeChecks(() => postgresSessionStore(db))) {
    test(check.name, check.run, 60_000)
  }
})
