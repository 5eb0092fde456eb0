import { sessionResumeChecks } from '@contextkit/agent-loop/testing'
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
import { migratedPglite, socketServer } from './test-support.js'

// core's SessionStore and StateStore conformance checks, on PGlite in-process and through the
// real `pg` driver (a single Client: the pool path is covered by pg-driver and multi-process
// tests), and agent-loop's resume checks (the loop finishing runs from this store's log).
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
