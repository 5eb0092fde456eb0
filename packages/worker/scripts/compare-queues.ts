// Measures the two well-kept Postgres job queues this package could stand on, against a real
// PostgreSQL server, on the three properties the worker needs (issue 42's closing note):
//
//   1. recovery: a worker process is SIGKILLed while it holds a job; how long until a live
//      worker starts that job again (capped at RECOVERY_CAP_MS);
//   2. one active job per key: 20 keys × 5 jobs enqueued at once, two queue instances with
//      4 slots each; the most jobs of one key running at once, and whether each key's jobs
//      started in the order they were enqueued;
//   3. enqueue → start latency: one job at a time into an idle worker (median, p95, ms).
//
// Run: node --import tsx packages/worker/scripts/compare-queues.ts
// (uses CONTEXTKIT_TEST_POSTGRES_URL when set, else starts a throwaway server with
// test-utils/postgres-server.ts). graphile-worker is a dev dependency for this script only.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { makeWorkerUtils, run as runGraphile } from 'graphile-worker'
import pg from 'pg'
import { PgBoss } from 'pg-boss'
import { POSTGRES_URL_ENV, startPostgresServer } from '../../../test-utils/postgres-server.js'

const RECOVERY_CAP_MS = 90_000
const QUEUE = 'measure'
type Lib = 'pg-boss' | 'graphile-worker'

/** A queue opened on one database, the same five verbs for both libraries. */
interface Queue {
  /** Start taking jobs; `handler` gets the job's payload. */
  work(concurrency: number, handler: (data: Payload) => Promise<void>): Promise<void>
  add(data: Payload): Promise<void>
  stop(): Promise<void>
}
interface Payload {
  key: string
  n: number
  at: number
}

async function pgBossQueue(url: string): Promise<Queue> {
  const boss = new PgBoss({
    connectionString: url,
    useListenNotify: true,
    superviseIntervalSeconds: 1,
    monitorIntervalSeconds: 1,
    max: 4,
  })
  boss.on('error', () => undefined)
  await boss.start()
  await boss.createQueue(QUEUE, {
    policy: 'key_strict_fifo',
    heartbeatSeconds: 10,
    notify: true,
    retryLimit: 100,
  })
  return {
    async work(concurrency, handler) {
      await boss.work<Payload>(
        QUEUE,
        {
          localConcurrency: concurrency,
          pollingIntervalSeconds: 0.5,
          notifyPollingIntervalSeconds: 0.5,
        },
        async ([job]) => {
          if (job) await handler(job.data)
        },
      )
    },
    async add(data) {
      await boss.send(QUEUE, data, { singletonKey: data.key })
    },
    stop: () => boss.stop({ graceful: false, close: true, timeout: 1_000 }),
  }
}

async function graphileQueue(url: string): Promise<Queue> {
  const utils = await makeWorkerUtils({ connectionString: url })
  await utils.migrate()
  let runner: Awaited<ReturnType<typeof runGraphile>> | undefined
  return {
    async work(concurrency, handler) {
      runner = await runGraphile({
        connectionString: url,
        concurrency,
        noHandleSignals: true,
        pollInterval: 500,
        logger: new (await import('graphile-worker')).Logger(() => () => undefined),
        taskList: { [QUEUE]: async (payload) => handler(payload as Payload) },
      })
    },
    async add(data) {
      // queueName: jobs of one named queue run one at a time, in order
      await utils.addJob(QUEUE, data, { queueName: data.key, maxAttempts: 100 })
    },
    async stop() {
      await runner?.stop()
      await utils.release()
    },
  }
}

const open = (lib: Lib, url: string): Promise<Queue> =>
  lib === 'pg-boss' ? pgBossQueue(url) : graphileQueue(url)

async function freshDatabase(server: string, lib: Lib): Promise<string> {
  const name = `ck_measure_${lib.replace('-', '_')}_${randomBytes(3).toString('hex')}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(server)
  url.pathname = `/${name}`
  return url.href
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN
}

async function latency(lib: Lib, url: string): Promise<{ median: number; p95: number }> {
  const q = await open(lib, url)
  let started: ((ms: number) => void) | undefined
  await q.work(4, async (d) => started?.(Date.now() - d.at))
  const samples: number[] = []
  for (let n = 0; n < 60; n++) {
    const took = new Promise<number>((r) => {
      started = r
    })
    await q.add({ key: `k${n}`, n, at: Date.now() })
    samples.push(await took)
    await sleep(50)
  }
  await q.stop()
  const warm = samples.slice(10)
  return { median: pct(warm, 50), p95: pct(warm, 95) }
}

async function perKey(lib: Lib, url: string): Promise<{ maxActive: number; inOrder: boolean }> {
  const a = await open(lib, url)
  const b = await open(lib, url)
  const active = new Map<string, number>()
  const order = new Map<string, number[]>()
  let maxActive = 0
  let done = 0
  let finished: () => void = () => undefined
  const all = new Promise<void>((r) => {
    finished = r
  })
  const handler = async (d: Payload) => {
    const now = (active.get(d.key) ?? 0) + 1
    active.set(d.key, now)
    maxActive = Math.max(maxActive, now)
    order.set(d.key, [...(order.get(d.key) ?? []), d.n])
    await sleep(20)
    active.set(d.key, (active.get(d.key) ?? 1) - 1)
    if (++done === 100) finished()
  }
  for (let n = 0; n < 5; n++)
    for (let k = 0; k < 20; k++) await a.add({ key: `key${k}`, n, at: Date.now() })
  await a.work(4, handler)
  await b.work(4, handler)
  await all
  await Promise.all([a.stop(), b.stop()])
  const inOrder = [...order.values()].every((ns) => ns.every((n, i) => n === i))
  return { maxActive, inOrder }
}

/** One worker process that takes a job and never finishes it: the parent kills it. */
async function child(lib: Lib, url: string): Promise<void> {
  const q = await open(lib, url)
  await q.work(1, async (d) => {
    process.stdout.write(`started ${d.key}\n`)
    await new Promise(() => undefined)
  })
}

async function recovery(lib: Lib, url: string): Promise<number | undefined> {
  const here = fileURLToPath(import.meta.url)
  const proc = spawn(process.execPath, ['--import', 'tsx', here, 'child', lib, url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: proc.stdout })
  const taken = new Promise<void>((r) => lines.once('line', () => r()))
  const q = await open(lib, url)
  await q.add({ key: 'victim', n: 0, at: Date.now() })
  await taken
  proc.kill('SIGKILL')
  const killedAt = Date.now()
  let again: (ms: number) => void = () => undefined
  const restarted = new Promise<number>((r) => {
    again = r
  })
  await q.work(1, async () => again(Date.now() - killedAt))
  const cap = sleep(RECOVERY_CAP_MS).then(() => undefined)
  const ms = await Promise.race([restarted, cap])
  await q.stop()
  return ms
}

async function main(): Promise<void> {
  const [mode, lib, url] = process.argv.slice(2)
  if (mode === 'child') return child(lib as Lib, url as string)
  const given = process.env[POSTGRES_URL_ENV]
  const server = given ? undefined : await startPostgresServer()
  const base = given ?? (server as { url: string }).url
  try {
    for (const l of ['pg-boss', 'graphile-worker'] as const) {
      const lat = await latency(l, await freshDatabase(base, l))
      console.error(`${l}: latency measured`)
      const key = await perKey(l, await freshDatabase(base, l))
      console.error(`${l}: one active per key measured`)
      const rec = await recovery(l, await freshDatabase(base, l))
      const recText = rec === undefined ? `not within ${RECOVERY_CAP_MS / 1000} s` : `${rec} ms`
      console.log(
        `${l}: recovery after SIGKILL ${recText}; one active per key: max ${key.maxActive} active, ` +
          `in order ${key.inOrder}; enqueue→start median ${lat.median} ms, p95 ${lat.p95} ms`,
      )
    }
  } finally {
    await server?.stop()
  }
  process.exit(0)
}

await main()
