import { postgresSessionStore } from '@contextkit/store-postgres'
import pg from 'pg'
import { describe, expect, test } from 'vitest'
import { PROGRESS_WARNINGS, type ProgressWarning } from './listen-options.js'
import { listenProgress } from './listen-progress.js'
import type { ProgressNotice } from './progress.js'
import { question, scenarioRun } from './test-scenario.js'
import { realServer, realServerNote, scenarioDatabase, withClient } from './test-support.js'
import { agentWorker } from './worker.js'

const onServer = 'url' in realServer ? describe : describe.skip

/** Resolves with the first `n` items `push` is given. */
function collect<T>(n: number): { push: (x: T) => void; first: Promise<T[]> } {
  const items: T[] = []
  let done: (xs: T[]) => void = () => {}
  const first = new Promise<T[]>((resolve) => (done = resolve))
  return {
    push: (x) => {
      items.push(x)
      if (items.length === n) done(items.slice())
    },
    first,
  }
}

const notice = (over: Partial<ProgressNotice> = {}): ProgressNotice => ({
  v: 1,
  type: 'step-end',
  sessionId: 's1',
  jobId: 'j1',
  attempt: 0,
  workerId: 'w1',
  runId: 'r1',
  step: 1,
  at: 1,
  ...over,
})

onServer(`listenProgress on a real PostgreSQL server${realServerNote}`, () => {
  const { db: database, pool: connections } = scenarioDatabase('listen', 6)

  test("a worker's notices reach onNotice and every subscriber, parsed, in order", async () => {
    const all = collect<ProgressNotice>(4)
    const listener = await listenProgress({ connection: database().url }, all.push)
    const ends = collect<string>(1)
    const unsubscribe = listener.subscribe((n) => {
      if (n.type === 'run-end') ends.push(`${n.sessionId}:${n.stopReason}`)
    })
    const worker = await agentWorker({
      connection: database().url,
      store: postgresSessionStore(connections()),
      run: scenarioRun(connections()),
      concurrency: 1,
      workerId: 'w-listen',
    })
    try {
      const jobId = await worker.enqueueMessage('watched', question('watched', 0))
      expect(await ends.first).toEqual(['watched:end_turn'])
      const got = await all.first
      expect(got.map((n) => n.type)).toEqual(['job-start', 'step-end', 'step-end', 'run-end'])
      expect(got.every((n) => n.jobId === jobId && n.workerId === 'w-listen')).toBe(true)
      expect(got.map((n) => n.step ?? null)).toEqual([null, 1, 2, null])
      unsubscribe()
    } finally {
      await worker.close()
      await listener.close()
    }
  }, 120_000)

  test('malformed payloads are ignored with a warning; a throwing subscriber is reported and the others still called', async () => {
    const warnings: ProgressWarning[] = []
    const got = collect<ProgressNotice>(1)
    const listener = await listenProgress({
      pool: connections(),
      channel: 'ck_test_progress',
      onWarning: (w) => warnings.push(w),
    })
    listener.subscribe(() => {
      throw new Error('subscriber bug')
    })
    listener.subscribe(got.push)
    try {
      const send = (payload: string) =>
        connections().query('SELECT pg_notify($1, $2)', ['ck_test_progress', payload])
      await send('not json')
      await send(JSON.stringify({ ...notice(), v: 2 }))
      await send(JSON.stringify({ ...notice(), sessionId: '../etc' }))
      await send(JSON.stringify(notice({ sessionId: 'fine', extra: true } as never)))
      const [first] = await got.first
      expect(first).toEqual(notice({ sessionId: 'fine' }))
      expect(warnings.map((w) => w.code)).toEqual([
        PROGRESS_WARNINGS.malformed,
        PROGRESS_WARNINGS.malformed,
        PROGRESS_WARNINGS.malformed,
        PROGRESS_WARNINGS.subscriberFailed,
      ])
      expect(warnings[0]).toMatchObject({
        payload: 'not json',
        message: expect.stringContaining('not JSON'),
      })
      expect(warnings[1]?.message).toContain('v:')
      expect(warnings[2]?.message).toContain('sessionId')
    } finally {
      await listener.close()
    }
    // the pool's client was given back
    expect(connections().totalCount - connections().idleCount).toBe(0)
  }, 60_000)

  test('a lost connection is opened again, with a warning, and notices flow again', async () => {
    const warnings: ProgressWarning[] = []
    const seen: string[] = []
    const listener = await listenProgress(
      { connection: database().url, channel: 'ck_test_lost', onWarning: (w) => warnings.push(w) },
      (n) => seen.push(n.sessionId),
    )
    try {
      const killed = await withClient(database().url, async (c) => {
        const r = await c.query(
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE 'LISTEN "ck_test_lost"%'`,
        )
        return r.rows.length
      })
      expect(killed).toBe(1)
      await expect
        .poll(() => warnings.map((w) => w.code), { timeout: 30_000 })
        .toContain(PROGRESS_WARNINGS.reconnecting)
      // once it listens again, a notice arrives
      await expect
        .poll(
          async () => {
            await connections().query('SELECT pg_notify($1, $2)', [
              'ck_test_lost',
              JSON.stringify(notice({ sessionId: 'after' })),
            ])
            return seen.includes('after')
          },
          { timeout: 30_000, interval: 500 },
        )
        .toBe(true)
    } finally {
      await listener.close()
    }
  }, 60_000)

  test('bad options are a ValidationError; an unreachable server a ProgressListenError', async () => {
    await expect(listenProgress({} as never)).rejects.toMatchObject({ code: 'validation_error' })
    await expect(
      listenProgress({ connection: database().url, chanel: 'x' } as never),
    ).rejects.toMatchObject({
      code: 'validation_error',
      message: expect.stringContaining('chanel'),
    })
    await expect(
      listenProgress({ connection: database().url, channel: 'Bad-Name' }),
    ).rejects.toMatchObject({
      code: 'validation_error',
      message: expect.stringContaining('channel'),
    })
    await expect(
      listenProgress({ connection: database().url }, 'callback' as never),
    ).rejects.toMatchObject({
      code: 'validation_error',
      message: expect.stringContaining('onNotice'),
    })
    const closed = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:1/none' })
    await expect(listenProgress({ pool: closed })).rejects.toMatchObject({
      code: 'worker_progress_listen',
    })
    await closed.end()
  }, 60_000)
})
