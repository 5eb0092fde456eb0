import type { Job, PgBoss } from 'pg-boss'
import { queueError, startBoss } from './boss.js'
import { JobHandedBackError } from './errors.js'
import { type AgentJob, JobDataSchema } from './jobs.js'
import { type AgentWorkerOptions, resolveWorkerOptions } from './options.js'
import { type AgentQueue, enqueueCalls } from './queue.js'
import { type JobContext, runJob } from './run-job.js'

/** A running worker: it takes jobs until `close()`, and can queue jobs too. */
export interface AgentWorker extends AgentQueue {
  /** This worker's id (progress notices and the sessions' job entries name it). */
  readonly workerId: string
  /** Jobs running on this worker now. */
  readonly running: number
  /**
   * Stop taking jobs, wait up to `timeoutMs` (default 30000) for the running ones to finish,
   * then abort the rest and hand them back to the queue (failed with {@link JobHandedBackError},
   * retried at once by another worker, which resumes each session from its log); then close the
   * connections. No job is left claimed by a worker that is gone.
   */
  close(options?: { timeoutMs?: number }): Promise<void>
}

/** A started job: its run's abort and its end. */
interface Running {
  controller: AbortController
  done: Promise<unknown>
}

/** The job as `run` sees it; a payload that is not ours fails the job (never run). */
function agentJob(job: Job<unknown>, workerId: string): AgentJob {
  const data = JobDataSchema.parse(job.data)
  return { ...data, id: job.id, attempt: job.retryCount, workerId }
}

/**
 * Start a worker: it takes agent jobs from the queue, `concurrency` at a time, and runs each as
 * one `runAgent` call on its session (the options from `run(job)`; the worker sets `session`,
 * `messages` and `resume`). One job per session runs at a time across every worker (pg-boss's
 * `key_strict_fifo` queue keyed by session, plus the session's lease in the store); a session's
 * jobs run in the order they were queued. A worker that dies stops sending heartbeats: after
 * `heartbeatSeconds` (10 by default) its jobs are retried by another worker, which resumes each
 * session by the durable-run rules (idempotent tools re-run, other interrupted calls reported to
 * the model). Each step's progress is published with NOTIFY on `progressChannel`.
 *
 * Connections: pg-boss's pool (`maxConnections`, 4 by default) and one LISTEN connection with
 * `connection`; your pool's with `pool`; the store's own pool beside either.
 *
 * @throws ValidationError for bad options; WorkerQueueError when the database refuses.
 */
export async function agentWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const o = resolveWorkerOptions(options)
  const boss = await startBoss(o, o, true)
  const running = new Set<Running>()
  let closed = false
  const ctx: JobContext = {
    options: o,
    notify: async (payload) => {
      await boss.getDb().executeSql('SELECT pg_notify($1, $2)', [o.progressChannel, payload])
    },
  }
  const handle = async ([job]: Job<unknown>[]): Promise<unknown> => {
    if (job === undefined) return undefined
    const entry: Running = { controller: new AbortController(), done: Promise.resolve() }
    const aborted = () => entry.controller.abort(job.signal.reason)
    job.signal.addEventListener('abort', aborted, { once: true })
    const done = runJob(ctx, agentJob(job, o.workerId), entry.controller.signal)
    entry.done = done.catch(() => undefined)
    running.add(entry)
    try {
      const result = await done
      return { stopReason: result.stopReason, runId: result.runId }
    } finally {
      running.delete(entry)
      job.signal.removeEventListener('abort', aborted)
    }
  }
  try {
    await boss.work(
      o.queue,
      {
        localConcurrency: o.concurrency,
        pollingIntervalSeconds: o.pollingIntervalMs / 1000,
        notifyPollingIntervalSeconds: o.pollingIntervalMs / 1000,
      },
      handle,
    )
  } catch (error) {
    await boss.stop({ graceful: false, close: true, timeout: 1_000 }).catch(() => undefined)
    throw queueError('start the worker', error)
  }
  return {
    workerId: o.workerId,
    get running() {
      return running.size
    },
    ...enqueueCalls(boss, o, () => closed),
    async close({ timeoutMs = 30_000 } = {}) {
      if (closed) return
      closed = true
      await closeWorker(boss, o.queue, running, timeoutMs)
    },
  }
}

/** Stop fetching, let running jobs finish for `timeoutMs`, hand back the rest, stop pg-boss. */
async function closeWorker(
  boss: PgBoss,
  queue: string,
  running: Set<Running>,
  timeoutMs: number,
): Promise<void> {
  const stopped = boss.offWork(queue, { wait: true }).catch(() => undefined)
  const all = () => Promise.all([...running].map((r) => r.done))
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs)
  })
  if ((await Promise.race([all(), timeout])) === 'timeout') {
    for (const r of running) r.controller.abort(new JobHandedBackError('the worker is closing'))
    await all()
  }
  clearTimeout(timer)
  await stopped
  await boss.stop({ graceful: true, close: true, timeout: 5_000 })
}
