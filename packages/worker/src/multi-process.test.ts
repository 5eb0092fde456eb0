import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postgresSessionStore } from '@contextkit/store-postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DEFAULT_QUEUE } from './options.js'
import { agentQueue } from './queue.js'
import {
  bundleWorkerFixture,
  startWorkerProcess,
  stopWorkerProcess,
  type WorkerProcess,
} from './test-processes.js'
import { question } from './test-scenario.js'
import {
  realServer,
  realServerNote,
  scenarioDatabase,
  transcript,
  unfinishedJobs,
} from './test-support.js'

// The "done means": 4 worker processes, sessions × 3 messages queued at once, a scripted
// model (~50 ms a call), one non-idempotent tool call per run, a worker SIGKILLed every 2 s and
// restarted. CI runs 60 sessions (180 jobs): enough that every worker is killed mid-run several
// times while jobs of every kind are in flight, which is what the properties need.
// CONTEXTKIT_WORKER_FULL=1 runs the full size, 200 sessions (600 jobs).
const SESSIONS = process.env.CONTEXTKIT_WORKER_FULL === '1' ? 200 : 60
const MESSAGES = 3
const WORKERS = 4
const INTERRUPTED = 'may or may not have taken effect'

const onServer = 'url' in realServer ? describe : describe.skip

onServer(`worker processes killed and restarted${realServerNote}`, () => {
  const { db: database, pool: connections } = scenarioDatabase('workers', 4)
  let dir: string
  let bundle: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ck-workers-'))
    bundle = await bundleWorkerFixture(dir)
  }, 60_000)
  afterAll(() => rm(dir, { recursive: true, force: true }))

  test(`${WORKERS} workers, ${SESSIONS} sessions × ${MESSAGES} messages, one SIGKILLed every 2 s and at a fifth, half, four fifths done: each message answered once, in order; no tool run twice untold; 0 stuck jobs`, async () => {
    const queue = await agentQueue({ connection: database().url })
    const sessions = Array.from({ length: SESSIONS }, (_, s) => `s${s}`)
    await Promise.all(
      sessions.map(async (s) => {
        for (let n = 0; n < MESSAGES; n++) await queue.enqueueMessage(s, question(s, n))
      }),
    )
    await queue.close()
    const start = () => startWorkerProcess({ url: database().url, concurrency: 4 }, bundle)
    const workers: WorkerProcess[] = await Promise.all(Array.from({ length: WORKERS }, start))
    let kills = 0
    let done = false
    // every 2 s (counted from the last restart, so a slow machine is not killed faster than it
    // restarts), and also when a fifth, a half and four fifths of the jobs are done, so that a
    // fast machine (all 180 jobs in ~4 s) still kills workers at every stage of the queue. A
    // killed worker is restarted in the background: waiting for its start before the next check
    // let a loaded machine finish the queue meanwhile and miss the later stages (2 kills).
    const total = SESSIONS * MESSAGES
    const stages = [0.2, 0.5, 0.8].map((f) => total - Math.floor(total * f))
    const restarts: Array<Promise<void>> = Array.from({ length: WORKERS }, () => Promise.resolve())
    let restarting = 0
    let last = Date.now()
    const killer = (async () => {
      while (!done) {
        await new Promise((r) => setTimeout(r, 200))
        const left = await unfinishedJobs(database().url, DEFAULT_QUEUE)
        const stage = stages[0] !== undefined && left <= stages[0]
        const timed = restarting === 0 && Date.now() - last >= 2_000
        if (done || left === 0 || !(stage || timed)) continue
        if (stage) stages.shift()
        // the workers in turn: the one killed 4 kills ago has long been restarted
        const i = kills++ % WORKERS
        await restarts[i]
        workers[i]?.child.kill('SIGKILL')
        restarting++
        restarts[i] = (async () => {
          await workers[i]?.exited
          workers[i] = await start()
          restarting--
          last = Date.now()
        })()
      }
    })()
    try {
      await expect
        .poll(() => unfinishedJobs(database().url, DEFAULT_QUEUE), {
          timeout: 600_000,
          interval: 500,
        })
        .toBe(0)
    } finally {
      done = true
      await killer
      await Promise.all(restarts)
      await Promise.all(workers.map((w) => stopWorkerProcess(w)))
    }
    console.log(
      `multi-process worker test: ${SESSIONS * MESSAGES} jobs, ${kills} workers SIGKILLed`,
    )
    expect(kills).toBeGreaterThanOrEqual(3)

    const store = postgresSessionStore(connections())
    const runs = await connections().query<{ call_id: string; n: number }>(
      'SELECT call_id, count(*)::int AS n FROM ck_tool_runs GROUP BY call_id',
    )
    const ranTimes = new Map(runs.rows.map((r) => [r.call_id, r.n]))
    let interrupted = 0
    for (const s of sessions) {
      const { entries, warnings } = await store.load(s)
      expect(warnings).toEqual([])
      const said = transcript(entries).filter((t) => !t.startsWith('result:'))
      // every message once, in order, each answered before the next
      expect(said).toEqual(
        Array.from({ length: MESSAGES }, (_, n) => [
          `user:Q[${s}-m${n}]`,
          `assistant:A[${s}-m${n}]`,
        ]).flat(),
      )
      for (const e of entries) {
        if (e.type !== 'message') continue
        for (const b of e.message.content) {
          if (b.type !== 'tool_result') continue
          const text = JSON.stringify(b.content)
          // a call that ran twice would be a bug; one told "interrupted" may have run once
          expect(ranTimes.get(b.toolCallId) ?? 0).toBeLessThanOrEqual(1)
          if (text.includes(INTERRUPTED)) interrupted++
          else expect(ranTimes.get(b.toolCallId)).toBe(1)
        }
      }
    }
    expect([...ranTimes.values()].every((n) => n === 1)).toBe(true)
    console.log(
      `multi-process worker test: ${interrupted} tool calls reported to the model as interrupted`,
    )
  }, 900_000)
})
