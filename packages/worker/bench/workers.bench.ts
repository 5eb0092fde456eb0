import pg from 'pg'
import { afterAll, bench, describe } from 'vitest'
import { DEFAULT_QUEUE } from '../src/options.js'
import { agentQueue } from '../src/queue.js'
import { startWorkerProcess, stopWorkerProcess } from '../src/test-processes.js'
import { MODEL_CALLS_DDL, question, TOOL_RUNS_DDL } from '../src/test-scenario.js'
import { type RealDatabase, realDatabase, realServer, unfinishedJobs } from '../src/test-support.js'

// Throughput of the multi-process test's workload (no kills): 100 sessions × 3 messages, each
// run two scripted model calls of ~50 ms and one tool call, with 1, 2 and 4 worker processes of
// concurrency 4; and the time from enqueue to the first model call of each message.
const SESSIONS = 100
const MESSAGES = 3
const databases: RealDatabase[] = []
const throughput = new Map<number, number>()
afterAll(async () => {
  for (const db of databases) await db.drop()
})

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0

async function workload(workers: number): Promise<void> {
  const db = await realDatabase('bench')
  databases.push(db)
  const pool = new pg.Pool({ connectionString: db.url, max: 2 })
  await pool.query(TOOL_RUNS_DDL)
  await pool.query(MODEL_CALLS_DDL)
  const procs = await Promise.all(
    Array.from({ length: workers }, () =>
      startWorkerProcess({ url: db.url, concurrency: 4, recordCalls: true }),
    ),
  )
  const queue = await agentQueue({ connection: db.url })
  const started = Date.now()
  const sessions = Array.from({ length: SESSIONS }, (_, s) => `s${s}`)
  await Promise.all(
    sessions.map(async (s) => {
      for (let n = 0; n < MESSAGES; n++) await queue.enqueueMessage(s, question(s, n))
    }),
  )
  while ((await unfinishedJobs(db.url, DEFAULT_QUEUE)) > 0)
    await new Promise((r) => setTimeout(r, 100))
  const seconds = (Date.now() - started) / 1000
  await queue.close()
  await Promise.all(procs.map((p) => stopWorkerProcess(p)))
  const jobsPerSecond = (SESSIONS * MESSAGES) / seconds
  throughput.set(workers, jobsPerSecond)
  const waits = await pool.query<{ ms: number }>(
    `SELECT extract(epoch FROM (min(c.at) - j.created_on)) * 1000 AS ms
       FROM pgboss.job j JOIN ck_model_calls c ON c.question = j.data->>'sessionId' || '-m' || substr(j.data->'message'->'content'->0->>'text', length(j.data->>'sessionId') + 5, 1)
      GROUP BY j.id, j.created_on`,
  )
  const ms = waits.rows.map((r) => Number(r.ms))
  const ratio = jobsPerSecond / (throughput.get(1) ?? jobsPerSecond)
  console.log(
    `${workers} worker(s): ${jobsPerSecond.toFixed(1)} jobs/s (×${ratio.toFixed(2)} of 1 worker); ` +
      `enqueue → first model call median ${pct(ms, 50).toFixed(0)} ms, p95 ${pct(ms, 95).toFixed(0)} ms (${ms.length} jobs)`,
  )
  await pool.end()
}

const onServer = 'url' in realServer ? describe : describe.skip
onServer('agent jobs on worker processes', () => {
  for (const workers of [1, 2, 4]) {
    bench(
      `${SESSIONS} sessions × ${MESSAGES} messages, ${workers} worker(s)`,
      () => workload(workers),
      {
        iterations: 1,
        warmupIterations: 0,
        time: 0,
        warmupTime: 0,
      },
    )
  }
})
