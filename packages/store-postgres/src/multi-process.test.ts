import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { PGlite } from '@electric-sql/pglite'
import { build } from 'esbuild'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { bundleFixture } from '../../../test-utils/temp-dir.js'
import { postgresSessionStore } from './session-store.js'
import { postgresStateStore } from './state-store.js'
import { migratedPglite, socketServer } from './test-support.js'

// 4 worker processes, each with its own `pg` pool, against one Postgres (PGlite served over
// the wire protocol on 127.0.0.1). Every worker also runs migrate at start-up.
const run = promisify(execFile)
const WORKERS = 4

let db: PGlite
let server: Awaited<ReturnType<typeof socketServer>>
let dir: string
let worker: string
beforeAll(async () => {
  db = await migratedPglite()
  server = await socketServer(db, 16)
  dir = await mkdtemp(join(tmpdir(), 'ck-pg-multi-'))
  worker = await bundleFixture(new URL('./test-worker.ts', import.meta.url), dir, build, {
    commonJs: true,
  })
}, 60_000)
afterAll(async () => {
  await server.stop()
  await db.close()
  await rm(dir, { recursive: true, force: true })
})

async function workers(mode: string, count: number): Promise<Array<Record<string, number>>> {
  const outputs = await Promise.all(
    Array.from({ length: WORKERS }, (_, w) =>
      run(process.execPath, [worker, server.url, String(w), mode, String(count)], {
        timeout: 240_000,
      }),
    ),
  )
  return outputs.map((o) => JSON.parse(o.stdout.trim()) as Record<string, number>)
}

test('4 processes x 250 appends to one session: seq 1..1000, no gap, no duplicate, all present', async () => {
  const summaries = await workers('append', 250)
  expect(summaries.map((s) => s.appended)).toEqual([250, 250, 250, 250])
  const seqs = await db.query<{ seq: number }>(
    `SELECT seq::int AS seq FROM contextkit_sessions WHERE session_id = 'shared' ORDER BY seq`,
  )
  expect(seqs.rows.map((r) => r.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
  const { entries, warnings } = await postgresSessionStore(db).load('shared')
  expect(warnings).toEqual([])
  const ids = new Set(entries.map((e) => (e.type === 'custom' ? e.id : '')))
  expect(ids.size).toBe(1000)
  for (let w = 0; w < WORKERS; w++) {
    const mine = entries.filter((e) => e.type === 'custom' && e.id.startsWith(`w${w}-`))
    // each worker's entries are all there, in the order that worker appended them
    expect(mine.map((e) => (e.type === 'custom' ? e.id : ''))).toEqual(
      Array.from({ length: 250 }, (_, i) => `w${w}-${i}`),
    )
  }
}, 300_000)

test('4 processes x 50 compare-and-set saves: final revision = successful saves, no lost update', async () => {
  const summaries = await workers('bump', 50)
  expect(summaries.map((s) => s.saved)).toEqual([50, 50, 50, 50])
  const stored = await postgresStateStore<{ count: number; by: Record<string, number> }>(db).load(
    'shared-agent',
  )
  expect(stored?.revision).toBe(200)
  expect(stored?.state).toEqual({ count: 200, by: { 0: 50, 1: 50, 2: 50, 3: 50 } })
  const conflicts = summaries.reduce((n, s) => n + (s.conflicts ?? 0), 0)
  console.log(`multi-process state saves: 200 saved, ${conflicts} conflicts retried`)
}, 300_000)
