import {
  createRunInfo,
  createTurnContext,
  getModelInfo,
  memoryTrace,
  runFinalize,
  runPrepare,
  textMessage,
} from '@contextkit/core'
import type { SelfState } from '@contextkit/resumption'
import { resumption } from '@contextkit/resumption/node'
import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { reply } from '../../../test-utils/messages.js'
import { postgresStateStore } from './state-store.js'
import { migratedPglite } from './test-support.js'

// @contextkit/resumption on this store: two workers of one agent share its state.
let db: PGlite
beforeAll(async () => {
  db = await migratedPglite()
}, 60_000)
afterAll(async () => {
  await db.close()
})

const model = getModelInfo('claude-sonnet-4-6')
const turn = () => createTurnContext({ model, messages: [textMessage('user', 'continue')] })
let now = Date.parse('2026-03-01T12:00:00.000Z')
const clock = () => now

test('a tail saved by one worker wakes the agent up on another', async () => {
  const store = postgresStateStore<SelfState>(db)
  const workerA = resumption({ store, agentId: 'helper', now: clock })
  const workerB = resumption({ store, agentId: 'helper', now: clock })
  await runFinalize(
    [workerA],
    reply('the migration is half done; next, backfill the heads table'),
    turn(),
    createRunInfo({ sessionId: 'morning' }),
  )
  now += 60_000
  const trace = memoryTrace()
  const next = await runPrepare([workerB], turn(), createRunInfo({ sessionId: 'noon', trace }))
  expect(next.system.map((s) => s.id)).toEqual(['resumption'])
  expect(next.system[0]?.text).toContain('backfill the heads table')
  expect(trace.byStage('resumption:injected')[0]?.data).toMatchObject({
    action: 'inject',
    source: 'store',
  })
  const row = await store.load('helper')
  expect(row?.revision).toBe(1)
  expect(row?.state.revision).toBe(1)
})

test('two workers finishing at once: one saves, the other re-reads and saves on top', async () => {
  const store = postgresStateStore<SelfState>(db)
  const workers = [0, 1].map(() => resumption({ store, agentId: 'pair', now: clock }))
  const traces = [memoryTrace(), memoryTrace()]
  await Promise.all(
    workers.map((mw, i) =>
      runFinalize(
        [mw],
        reply(`worker ${i} stopped while writing the report`),
        turn(),
        createRunInfo({ sessionId: `s${i}`, trace: traces[i] }),
      ),
    ),
  )
  const captures = traces.map(
    (t) => t.byStage('resumption:captured')[0]?.data as Record<string, unknown>,
  )
  expect(captures.map((c) => c.action)).toEqual(['capture', 'capture'])
  expect(captures.map((c) => c.revision).sort()).toEqual([1, 2])
  expect(captures.filter((c) => c.retried === true)).toHaveLength(1)
  expect(traces.flatMap((t) => t.byStage('warning'))).toEqual([])
  const row = await store.load('pair')
  expect(row?.revision).toBe(2)
  const last = captures.find((c) => c.revision === 2)
  const lastIndex = captures.indexOf(last!)
  expect(row?.state.streamTail?.raw).toBe(`worker ${lastIndex} stopped while writing the report`)
})
