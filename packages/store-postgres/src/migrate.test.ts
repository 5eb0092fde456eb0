import { ValidationError } from '@contextkit/core'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SchemaVersionError } from './errors.js'
import { DEFAULT_MIGRATIONS_TABLE, migrate } from './migrate.js'

let db: PGlite
beforeAll(async () => {
  db = await PGlite.create()
}, 60_000)
afterAll(async () => {
  await db.close()
})

async function tables(): Promise<string[]> {
  const result = await db.query<{ name: string }>(
    `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
     WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
  )
  return result.rows.map((r) => r.name)
}

test('migrate creates both stores and records versions; a second run does nothing', async () => {
  const first = await migrate(db)
  expect(first.applied).toEqual([
    {
      target: 'sessions:contextkit_sessions',
      version: 1,
      description: 'session heads and entries',
    },
    { target: 'state:contextkit_state', version: 1, description: 'agent state with revisions' },
    { target: 'traces:contextkit_traces', version: 1, description: 'run trace events' },
    { target: 'leases:contextkit_sessions', version: 1, description: 'session leases' },
  ])
  expect(await tables()).toEqual([
    'public.contextkit_migrations',
    'public.contextkit_sessions',
    'public.contextkit_sessions_heads',
    'public.contextkit_sessions_leases',
    'public.contextkit_state',
    'public.contextkit_traces',
  ])
  expect(await migrate(db)).toEqual({ applied: [] })
  const runs = await Promise.all(Array.from({ length: 5 }, () => migrate(db)))
  expect(runs.every((r) => r.applied.length === 0)).toBe(true)
})

test('the indexes serve load (session_id, seq), list (session_id) and leases (session_id)', async () => {
  const result = await db.query<{ tablename: string; indexdef: string }>(
    `SELECT tablename, indexdef FROM pg_indexes WHERE tablename LIKE 'contextkit_sessions%' ORDER BY 1`,
  )
  expect(result.rows.map((r) => [r.tablename, r.indexdef.replace(/^.* USING /, '')])).toEqual([
    ['contextkit_sessions', 'btree (session_id, seq)'],
    ['contextkit_sessions_heads', 'btree (session_id)'],
    ['contextkit_sessions_leases', 'btree (session_id)'],
  ])
})

test('custom and schema-qualified table names; concurrent first runs apply once', async () => {
  await db.query('CREATE SCHEMA IF NOT EXISTS agents')
  const options = {
    sessionTable: 'agents.chat',
    stateTable: 'agents.memory',
    traceTable: 'agents.steps',
    migrationsTable: 'agents.versions',
  }
  const runs = await Promise.all(Array.from({ length: 4 }, () => migrate(db, options)))
  expect(runs.flatMap((r) => r.applied.map((a) => a.target)).sort()).toEqual([
    'leases:agents.chat',
    'sessions:agents.chat',
    'state:agents.memory',
    'traces:agents.steps',
  ])
  expect((await tables()).filter((t) => t.startsWith('agents.'))).toEqual([
    'agents.chat',
    'agents.chat_heads',
    'agents.chat_leases',
    'agents.memory',
    'agents.steps',
    'agents.versions',
  ])
})

test('a database ahead of this package is refused and left untouched', async () => {
  await db.query(
    `INSERT INTO ${DEFAULT_MIGRATIONS_TABLE} (target, version, description) VALUES ('state:contextkit_state', 99, 'future')`,
  )
  const error = await migrate(db).catch((e: unknown) => e)
  expect(SchemaVersionError.isInstance(error)).toBe(true)
  expect((error as SchemaVersionError).details).toMatchObject({ current: 99, latest: 1 })
  await db.query(`DELETE FROM ${DEFAULT_MIGRATIONS_TABLE} WHERE version = 99`)
})

test('unsafe table names and a bad db are a ValidationError before any SQL', async () => {
  const before = await tables()
  for (const name of [
    '',
    'Upper',
    'a-b',
    'a;drop',
    '"q"',
    'a.b.c',
    '1abc',
    'x'.repeat(49),
    ' a',
    7,
  ]) {
    for (const key of ['sessionTable', 'stateTable', 'migrationsTable']) {
      const error = await migrate(db, { [key]: name }).catch((e: unknown) => e)
      expect(ValidationError.isInstance(error), `${key}=${String(name)}`).toBe(true)
    }
  }
  const unknownKey = await migrate(db, { table: 'x' } as object).catch((e: unknown) => e)
  expect(ValidationError.isInstance(unknownKey)).toBe(true)
  const noDb = await migrate({} as PGlite).catch((e: unknown) => e)
  expect(ValidationError.isInstance(noDb)).toBe(true)
  expect(await tables()).toEqual(before)
})
