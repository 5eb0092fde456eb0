// One worker process of the multi-process test (src/multi-process.test.ts): connects to the
// server at argv[2] with the real `pg` driver and either appends one-entry batches to one
// session or bumps a counter in one agent's state with compare-and-set, then prints a JSON
// summary on stdout. Bundled by the test (test-bundle.ts) and run with `node`. The pool goes through multiplexSafePool
// (see test-pool.ts) because the test server is pglite-socket, not a real Postgres.
import { RevisionConflictError, type SessionEntry } from '@contextkit/core'
import pg from 'pg'
import { migrate } from './migrate.js'
import { postgresSessionStore } from './session-store.js'
import { postgresStateStore } from './state-store.js'
import { multiplexSafePool } from './test-pool.js'

const [url = '', worker = '0', mode = 'append', countText = '0'] = process.argv.slice(2)
const count = Number(countText)
const pool = new pg.Pool({ connectionString: url, max: 2 })
const db = multiplexSafePool(pool)

async function appendMany(): Promise<Record<string, number>> {
  const store = postgresSessionStore(db)
  for (let i = 0; i < count; i++) {
    const entry: SessionEntry = {
      type: 'custom',
      id: `w${worker}-${i}`,
      parentId: null,
      ts: new Date().toISOString(),
      customType: 'worker',
      data: { worker: Number(worker), i },
    }
    await store.append('shared', [entry])
  }
  return { appended: count }
}

async function bumpMany(): Promise<Record<string, number>> {
  const store = postgresStateStore<{ count: number; by: Record<string, number> }>(db)
  let saved = 0
  let conflicts = 0
  while (saved < count) {
    const current = await store.load('shared-agent')
    const state = current?.state ?? { count: 0, by: {} }
    const next = {
      count: state.count + 1,
      by: { ...state.by, [worker]: (state.by[worker] ?? 0) + 1 },
    }
    try {
      await store.save('shared-agent', next, { expectedRevision: current?.revision ?? 0 })
      saved++
    } catch (error) {
      if (!RevisionConflictError.isInstance(error)) throw error
      conflicts++
    }
  }
  return { saved, conflicts }
}

try {
  await migrate(db)
  const summary = mode === 'append' ? await appendMany() : await bumpMany()
  process.stdout.write(`${JSON.stringify({ worker: Number(worker), ...summary })}\n`)
} finally {
  await pool.end()
}
