// agent-loop's durable-run crash matrix on Postgres: worker processes SIGKILLed in each state a
// run can be left in and at random instants, resumed until each run ends. On PGlite served over
// the wire protocol on 127.0.0.1 (the embedded default), and on a real PostgreSQL server, where
// each connection is its own session and a killed worker's open transaction is rolled back by
// the server.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DURABLE_STATES, durableCrashMatrix, durableScript } from '@contextkit/agent-loop/testing'
import { startAnthropicEmulator } from '@contextkit/testkit'
import type { PGlite } from '@electric-sql/pglite'
import { build } from 'esbuild'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bundleFixture } from '../../../test-utils/temp-dir.js'
import { postgresSessionStore } from './session-store.js'
import { type RealDatabase, realDatabase, realServer, realServerNote } from './test-server.js'
import { migratedPglite, socketServer } from './test-support.js'

/**
 * Kills per matrix, at least. The property (every run ends whole) needs kills in each state a run
 * can be left in (DURABLE_STATES): before the user's message, awaiting a reply, mid tools. The
 * matrix aims its kills there (see durableCrashMatrix): every even trial reaches the three, so
 * its default of 20 kills (4 trials of 6: 16 aimed, 8 at random instants, about 24 land) reaches
 * each state at least twice by design, on any machine. Each kill costs a worker process (about
 * half a second of CPU): the 60 and 45 random-first kills this file ran before reached the states
 * 6 to 34 times each and took 150 s of CI. On the real server, what the matrix adds is its own
 * session per connection and the rollback of a killed worker's open transaction.
 */
const KILLS = Number(process.env.DURABLE_CRASH_KILLS ?? 20)
const REAL_SERVER_KILLS = Number(process.env.DURABLE_CRASH_KILLS_REAL_SERVER ?? KILLS)

let emulator: Awaited<ReturnType<typeof startAnthropicEmulator>>
let dir: string
let worker: string

beforeAll(async () => {
  emulator = await startAnthropicEmulator({ script: durableScript })
  dir = await mkdtemp(join(tmpdir(), 'ck-pg-durable-'))
  worker = await bundleFixture(
    new URL('./durable-worker.fixture.ts', import.meta.url),
    dir,
    build,
    { commonJs: true },
  )
}, 60_000)
afterAll(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})

/**
 * The matrix with workers on the server at `url` (`pglite`: pglite-socket), the log read back
 * over the wire through `pool`, as a separate session.
 */
async function matrix(
  kills: number,
  url: string,
  pglite: boolean,
  pool: pg.Pool,
  name: string,
): Promise<void> {
  const store = postgresSessionStore(pool)
  const result = await durableCrashMatrix({
    kills,
    baseURL: emulator.url,
    workDir: join(dir, `effects-${name}`),
    startWorker: (args) =>
      spawn(process.execPath, [worker, JSON.stringify({ ...args, url, pglite })], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    load: async (id) => (await store.load(id)).entries,
    requests: () => emulator.requests.map((r) => r.body),
  })
  expect(result.kills).toBeGreaterThanOrEqual(kills)
  for (const state of DURABLE_STATES) expect(result.landed[state]).toBeGreaterThanOrEqual(2)
  console.info(
    `durable crash matrix (${name}): ${result.trials} trials, ${result.kills} kills (${result.randomKills} at random), every run whole; kills left the log: ${JSON.stringify(result.landed)}`,
  )
}

describe('on PGlite over the wire protocol', () => {
  let db: PGlite
  let server: Awaited<ReturnType<typeof socketServer>>
  let pool: pg.Pool
  beforeAll(async () => {
    db = await migratedPglite()
    server = await socketServer(db, 16)
    // The test reads the log over the wire too, as a separate session. PGlite is one session: a
    // direct read could run inside the open transaction of a worker just killed, before the
    // socket server has seen the disconnect and rolled it back, and so count a message that is
    // never committed (a real server never shows one session another's uncommitted rows).
    pool = new pg.Pool({ connectionString: server.url, max: 2 })
  }, 60_000)
  afterAll(async () => {
    await pool.end()
    await server.stop()
    await db.close()
  })

  test(`durable runs on Postgres end whole after ${KILLS}+ SIGKILLs, aimed at each state and at random`, async () => {
    await matrix(KILLS, server.url, true, pool, 'PGlite')
  }, 600_000)
})

describe.skipIf(!('url' in realServer))(`on a real PostgreSQL server${realServerNote}`, () => {
  let database: RealDatabase
  let pool: pg.Pool
  beforeAll(async () => {
    database = await realDatabase('durable')
    pool = new pg.Pool({ connectionString: database.url, max: 2 })
  }, 60_000)
  afterAll(async () => {
    await pool?.end()
    await database?.drop()
  })

  test(`durable runs end whole after ${REAL_SERVER_KILLS}+ SIGKILLs, aimed at each state and at random`, async () => {
    await matrix(REAL_SERVER_KILLS, database.url, false, pool, 'PostgreSQL server')
  }, 600_000)
})
