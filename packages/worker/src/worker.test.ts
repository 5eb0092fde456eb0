import { scriptedProvider } from '@contextkit/agent-loop/testing'
import { textMessage } from '@contextkit/core'
import { postgresSessionStore } from '@contextkit/store-postgres'
import pg from 'pg'
import { describe, expect, test } from 'vitest'
import { JOB_ENTRY_TYPE, type JobEntryData } from './jobs.js'
import { DEFAULT_PROGRESS_CHANNEL, DEFAULT_QUEUE } from './options.js'
import type { ProgressNotice } from './progress.js'
import { question, scenarioRun } from './test-scenario.js'
import {
  realServer,
  realServerNote,
  scenarioDatabase,
  transcript,
  unfinishedJobs,
} from './test-support.js'
import { agentWorker } from './worker.js'

const onServer = 'url' in realServer ? describe : describe.skip

onServer(`agentWorker on a real PostgreSQL server${realServerNote}`, () => {
  const { db: database, pool: connections } = scenarioDatabase('worker', 6)

  test("a session's messages are answered in the order queued, one run at a time, and each step is published", async () => {
    const listener = new pg.Client({ connectionString: database().url })
    await listener.connect()
    const notices: ProgressNotice[] = []
    listener.on('notification', (n) => notices.push(JSON.parse(n.payload ?? '{}')))
    await listener.query(`LISTEN ${DEFAULT_PROGRESS_CHANNEL}`)
    const store = postgresSessionStore(connections())
    const worker = await agentWorker({
      connection: database().url,
      store,
      run: scenarioRun(connections()),
      concurrency: 4,
    })
    try {
      const ids: string[] = []
      for (let n = 0; n < 3; n++)
        ids.push(await worker.enqueueMessage('chat-1', question('chat-1', n)))
      await expect
        .poll(() => unfinishedJobs(database().url, DEFAULT_QUEUE), { timeout: 60_000 })
        .toBe(0)
      const { entries } = await store.load('chat-1')
      expect(transcript(entries).filter((t) => !t.startsWith('result:'))).toEqual([
        'user:Q[chat-1-m0]',
        'assistant:A[chat-1-m0]',
        'user:Q[chat-1-m1]',
        'assistant:A[chat-1-m1]',
        'user:Q[chat-1-m2]',
        'assistant:A[chat-1-m2]',
      ])
      await expect.poll(() => notices.filter((n) => n.type === 'run-end').length).toBe(3)
      const mine = notices.filter((n) => n.jobId === ids[0])
      expect(mine.map((n) => n.type)).toEqual(['job-start', 'step-end', 'step-end', 'run-end'])
      expect(mine.at(-1)).toMatchObject({
        sessionId: 'chat-1',
        stopReason: 'end_turn',
        workerId: worker.workerId,
      })
    } finally {
      await worker.close()
      await listener.end()
    }
  }, 120_000)

  test('close() hands a running job back: another worker takes it at once and finishes the session', async () => {
    const store = postgresSessionStore(connections())
    const fast = scenarioRun(connections())
    const slow = () => ({
      ...fast(),
      provider: scriptedProvider([{ text: 'never finished', delayMs: 600_000 }], { record: false }),
    })
    const a = await agentWorker({
      connection: database().url,
      store,
      run: slow,
      concurrency: 1,
      workerId: 'a',
    })
    await a.enqueueMessage('handed-back', question('handed-back', 0))
    await expect.poll(() => a.running, { timeout: 60_000 }).toBe(1)
    await a.close({ timeoutMs: 0 })
    expect(a.running).toBe(0)
    const b = await agentWorker({
      connection: database().url,
      store,
      run: fast,
      concurrency: 1,
      workerId: 'b',
    })
    try {
      await expect
        .poll(() => unfinishedJobs(database().url, DEFAULT_QUEUE), { timeout: 60_000 })
        .toBe(0)
    } finally {
      await b.close()
    }
    const { entries } = await store.load('handed-back')
    const tries = entries.flatMap((e) =>
      e.type === 'custom' && e.customType === JOB_ENTRY_TYPE ? [e.data as JobEntryData] : [],
    )
    expect(tries.map((t) => [t.workerId, t.attempt])).toEqual([
      ['a', 0],
      ['b', 1],
    ])
    // the message saved by the first try is not saved again
    expect(transcript(entries)).toEqual([
      'user:Q[handed-back-m0]',
      expect.stringContaining('result:'),
      'assistant:A[handed-back-m0]',
    ])
  }, 180_000)

  test('bad input is a typed error and queues nothing', async () => {
    const store = postgresSessionStore(connections())
    await expect(
      agentWorker({ store, run: scenarioRun(connections()) } as never),
    ).rejects.toMatchObject({
      code: 'validation_error',
    })
    await expect(
      agentWorker({
        connection: database().url,
        store,
        run: scenarioRun(connections()),
        concurency: 2,
      } as never),
    ).rejects.toMatchObject({
      code: 'validation_error',
      message: expect.stringContaining('concurency'),
    })
    const worker = await agentWorker({
      connection: database().url,
      store,
      run: scenarioRun(connections()),
      concurrency: 1,
    })
    try {
      await expect(
        worker.enqueueMessage('../etc', textMessage('user', 'hi')),
      ).rejects.toMatchObject({ code: 'validation_error' })
      await expect(worker.enqueueMessage('ok', { role: 'user' } as never)).rejects.toMatchObject({
        code: 'validation_error',
      })
      await expect(
        worker.enqueueApproval('ok', { c1: { approve: 'yes' } } as never),
      ).rejects.toMatchObject({ code: 'validation_error' })
    } finally {
      await worker.close()
    }
    await expect(worker.enqueueMessage('ok', textMessage('user', 'hi'))).rejects.toMatchObject({
      code: 'worker_closed',
    })
  }, 120_000)
})
