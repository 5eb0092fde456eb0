import { RevisionConflictError } from '@contextkit/core'
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { StoreQueryError } from './errors.js'
import { migrate } from './migrate.js'
import { postgresSessionStore } from './session-store.js'
import { postgresStateStore } from './state-store.js'
import { multiplexSafePool } from './test-pool.js'
import {
  cuttingProxy,
  messageEntry,
  migratedPglite,
  socketServer,
  turnEntries,
} from './test-support.js'

// The real `pg` driver over the Postgres wire protocol (pglite-socket on 127.0.0.1).
let db: PGlite
let server: Awaited<ReturnType<typeof socketServer>>
let pool: pg.Pool
beforeAll(async () => {
  db = await migratedPglite()
  server = await socketServer(db)
  pool = new pg.Pool({ connectionString: server.url, max: 4 })
}, 60_000)
afterAll(async () => {
  await pool.end()
  await server.stop()
  await db.close()
})

async function seqs(session: string): Promise<number[]> {
  const result = await pool.query<{ seq: number }>(
    'SELECT seq::int AS seq FROM contextkit_sessions WHERE session_id = $1 ORDER BY seq',
    [session],
  )
  return result.rows.map((r) => r.seq)
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

describe('with a pg Pool', () => {
  test('migrate is idempotent through the driver', async () => {
    expect(await migrate(pool)).toEqual({ applied: [] })
  })

  test('concurrent appends over several connections stay gapless; clients go back to the pool', async () => {
    const store = postgresSessionStore(pool)
    await Promise.all(range(60).map((i) => store.append('pool-race', turnEntries(i, `p${i}-`))))
    expect(await seqs('pool-race')).toEqual(range(240))
    expect((await store.load('pool-race')).entries).toHaveLength(240)
    expect(pool.totalCount).toBeLessThanOrEqual(4)
    expect(pool.waitingCount).toBe(0)
    expect(pool.idleCount).toBe(pool.totalCount)
  })

  test('racing compare-and-set saves: one winner per revision, no lost update', async () => {
    const store = postgresStateStore<{ count: number }>(multiplexSafePool(pool))
    await store.save('pool-agent', { count: 0 }, { expectedRevision: 0 })
    const bump = async () => {
      for (;;) {
        const current = await store.load('pool-agent')
        try {
          return await store.save(
            'pool-agent',
            { count: (current?.state.count ?? 0) + 1 },
            { expectedRevision: current?.revision ?? 0 },
          )
        } catch (error) {
          if (!RevisionConflictError.isInstance(error)) throw error
        }
      }
    }
    await Promise.all(range(20).map(bump))
    expect(await store.load('pool-agent')).toEqual({ state: { count: 20 }, revision: 21 })
  })
})

describe('with a single pg Client', () => {
  test('the store serializes its transactions on the one connection', async () => {
    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    const notices: string[] = []
    client.on('notice', (n) => notices.push(n.message ?? ''))
    try {
      const store = postgresSessionStore(client)
      const state = postgresStateStore(client)
      await Promise.all([
        ...range(25).map((i) =>
          store.append('client-race', [messageEntry(`c${i}`), messageEntry(`d${i}`)]),
        ),
        ...range(10).map((i) => state.save('client-agent', i)),
        store.load('client-race'),
      ])
      expect(await seqs('client-race')).toEqual(range(50))
      expect((await state.load('client-agent'))?.revision).toBe(10)
      // no "there is already a transaction in progress" from interleaved BEGINs
      expect(notices).toEqual([])
    } finally {
      await client.end()
    }
  })
})

describe('a connection dropped in the middle of an append', () => {
  for (const [where, marker] of [
    ['before the entries are inserted', 'json_array_elements'],
    ['after the insert, before COMMIT', 'COMMIT'],
  ] as const) {
    test(`${where}: no partial batch, and the next append continues without a gap`, async () => {
      const session = `dropped-${marker.length}`
      const store = postgresSessionStore(pool)
      await store.append(session, turnEntries(1))
      const proxy = await cuttingProxy(server.port, (bytes) => bytes.includes(marker))
      const flaky = new pg.Pool({
        host: '127.0.0.1',
        port: proxy.port,
        user: 'postgres',
        database: 'postgres',
        max: 1,
      })
      flaky.on('error', () => undefined)
      try {
        const error = await postgresSessionStore(flaky)
          .append(session, turnEntries(2))
          .catch((e: unknown) => e)
        expect(proxy.cuts()).toBe(1)
        expect(StoreQueryError.isInstance(error)).toBe(true)
      } finally {
        await flaky.end().catch(() => undefined)
        await proxy.close()
      }
      const { entries } = await store.load(session)
      expect(entries).toEqual(turnEntries(1))
      await store.append(session, turnEntries(3))
      expect(await seqs(session)).toEqual(range(8))
      expect((await store.load(session)).entries).toEqual([...turnEntries(1), ...turnEntries(3)])
    })
  }
})
