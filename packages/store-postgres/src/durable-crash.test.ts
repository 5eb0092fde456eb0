// agent-loop's durable-run crash matrix on Postgres (PGlite served over the wire protocol on
// 127.0.0.1): worker processes SIGKILLed at random instants, resumed until each run ends.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { durableCrashMatrix, durableScript } from '@contextkit/agent-loop/testing'
import { startAnthropicEmulator } from '@contextkit/testkit'
import type { PGlite } from '@electric-sql/pglite'
import { build } from 'esbuild'
import pg from 'pg'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { postgresSessionStore } from './session-store.js'
import { migratedPglite, socketServer } from './test-support.js'

const KILLS = Number(process.env.DURABLE_CRASH_KILLS ?? 200)

let db: PGlite
let pool: pg.Pool
let server: Awaited<ReturnType<typeof socketServer>>
let emulator: Awaited<ReturnType<typeof startAnthropicEmulator>>
let dir: string
let worker: string

beforeAll(async () => {
  db = await migratedPglite()
  server = await socketServer(db, 16)
  // The test reads the log over the wire too, as a separate session. PGlite is one session: a
  // direct read could run inside the open transaction of a worker just killed, before the socket
  // server has seen the disconnect and rolled it back, and so count a message that is never
  // committed (a real server never shows one session another's uncommitted rows).
  pool = new pg.Pool({ connectionString: server.url, max: 2 })
  emulator = await startAnthropicEmulator({ script: durableScript })
  dir = await mkdtemp(join(tmpdir(), 'ck-pg-durable-'))
  worker = join(dir, 'worker.mjs')
  await build({
    entryPoints: [fileURLToPath(new URL('./durable-worker.fixture.ts', import.meta.url))],
    outfile: worker,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // pg's optional native binding is never loaded; pg is CommonJS, so `require` is given
    external: ['pg-native'],
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  })
}, 60_000)
afterAll(async () => {
  await pool.end()
  await emulator.close()
  await server.stop()
  await db.close()
  await rm(dir, { recursive: true, force: true })
})

test(`durable runs on Postgres end whole after ${KILLS} SIGKILLs at random instants`, async () => {
  const store = postgresSessionStore(pool)
  const { trials, kills, landed } = await durableCrashMatrix({
    kills: KILLS,
    baseURL: emulator.url,
    workDir: join(dir, 'effects'),
    startWorker: (args) =>
      spawn(process.execPath, [worker, JSON.stringify({ ...args, url: server.url })], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    load: async (id) => (await store.load(id)).entries,
    requests: () => emulator.requests.map((r) => r.body),
  })
  expect(kills).toBeGreaterThanOrEqual(KILLS)
  console.info(
    `durable crash matrix (Postgres): ${trials} trials, ${kills} kills, every run whole; kills left the log: ${JSON.stringify(landed)}`,
  )
}, 600_000)
