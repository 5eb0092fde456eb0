// One worker process of `pnpm demo --workers N` (started by workers-demo.ts with
// `node --import tsx`): takes the demo's jobs from the queue and runs each as one turn of the
// embedded runner on the Postgres stores. argv[2] is JSON ({@link DemoWorkerSpec}). Prints
// `ready` once it takes jobs; SIGTERM, SIGINT or the parent going away closes it (running jobs
// finish, or are handed back), then it exits 0.
import Anthropic from '@anthropic-ai/sdk'
import { ownerAlive, processIdentity } from '@contextkit/core/node'
import type { SelfState } from '@contextkit/resumption'
import { postgresSessionStore, postgresStateStore, postgresTrace } from '@contextkit/store-postgres'
import { agentWorker } from '@contextkit/worker'
import pg from 'pg'
import { embeddedAgentSetup } from '../embedded-runner.js'
import { isEntryPoint } from '../entry-point.js'

/** What the parent tells one worker process. */
export interface DemoWorkerSpec {
  /** The Postgres server of the stores and the queue. */
  url: string
  /** The pg-boss queue of the demo's jobs. */
  queue: string
  /** This worker's id (`worker-1`…): the sessions' job entries and progress notices name it. */
  workerId: string
  /** Jobs it runs at once. */
  concurrency: number
  workspace: string
  model: string
  contextFile?: string
  allowOutsideContextFile?: boolean
  /** The emulator's URL (offline); absent: Claude, with this process's `ANTHROPIC_API_KEY`. */
  baseURL?: string
}

/** Start the worker of `spec`; resolves its stop (close the worker, flush the traces, end the pool). */
export async function startDemoWorker(spec: DemoWorkerSpec): Promise<() => Promise<void>> {
  const pool = new pg.Pool({ connectionString: spec.url, max: spec.concurrency + 2 })
  pool.on('error', () => {}) // an idle client's lost connection: the next query reports it
  // workers on one machine: a dead worker's session lease is taken over at once
  const store = postgresSessionStore(pool, {
    leaseHolder: await processIdentity(),
    holderAlive: ownerAlive,
  })
  const stateStore = postgresStateStore<SelfState>(pool)
  const client = new Anthropic({
    apiKey: spec.baseURL ? 'offline-demo' : process.env.ANTHROPIC_API_KEY,
    ...(spec.baseURL ? { baseURL: spec.baseURL, maxRetries: 0 } : {}),
  })
  const traces: Array<ReturnType<typeof postgresTrace>> = []
  const worker = await agentWorker({
    connection: spec.url,
    queue: spec.queue,
    store,
    concurrency: spec.concurrency,
    workerId: spec.workerId,
    run: async (job) => {
      const trace = postgresTrace(pool, job.sessionId)
      traces.push(trace)
      const setup = await embeddedAgentSetup({
        client,
        model: spec.model,
        workspace: spec.workspace,
        sessionId: job.sessionId,
        sessionStore: store,
        stateStore,
        ...(spec.contextFile
          ? { contextFile: spec.contextFile, allowOutsideContextFile: spec.allowOutsideContextFile }
          : {}),
        // the trace goes beside the sessions (workers on other machines share only the database)
        traceFile: false,
        trace,
        maxTokens: 1024,
        maxModelCalls: 6,
      })
      return setup.options
    },
  })
  return async () => {
    await worker.close({ timeoutMs: 10_000 })
    await Promise.all(traces.map((t) => t.flush().catch(() => {})))
    await pool.end()
  }
}

if (isEntryPoint(import.meta.url)) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as DemoWorkerSpec
  const stop = await startDemoWorker(spec)
  let stopping = false
  const close = () => {
    if (stopping) return
    stopping = true
    void stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${spec.workerId}: closing failed: ${String(error)}\n`)
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', close)
  process.on('SIGINT', close)
  process.on('disconnect', close)
  process.stdout.write('ready\n')
}
