import { type SessionEntry, type SessionStore, textOf } from '@contextkit/core'
import {
  agentQueue,
  JOB_ENTRY_TYPE,
  type JobEntryData,
  listenProgress,
  type ProgressListener,
} from '@contextkit/worker'
import pg from 'pg'
import { abbreviate } from '../describe-turn.js'
import type { DemoWorkersArgs } from './args.js'
import { serveInspector } from './inspect.js'
import { newSessionId } from './run-turn.js'
import type { DemoStores } from './stores.js'
import { duration, num, type Terminal } from './terminal.js'
import { startWorkerProcess, stopWorkerProcess, type WorkerProcess } from './worker-processes.js'

/** The pg-boss queue of the demo's jobs (apart from an app's default queue on the same database). */
export const DEMO_QUEUE = 'contextkit_demo_runs'
/** Runs one worker process takes at once. */
const WORKER_CONCURRENCY = 2
/** How often the queue is read for jobs that finished without a notice reaching us. */
const CHECK_MS = 1_000

/** What `--workers` runs, and where. */
export interface WorkersDemoInput {
  workers: DemoWorkersArgs
  /** The messages each session is sent, in order. */
  messages: readonly string[]
  /** The Postgres server of `--store`: sessions, state, traces and the queue. */
  url: string
  stores: DemoStores
  workspace: string
  model: string
  contextFile: string | undefined
  allowOutsideContextFile: boolean
  /** The emulator's URL (offline); absent: Claude (the workers read `ANTHROPIC_API_KEY`). */
  baseURL: string | undefined
  /** `--inspect`: serve the inspector, woken by the workers' progress notices. */
  inspect: boolean
  term: Terminal
  /** Lines of the workers' stderr. */
  log: (line: string) => void
  signal?: AbortSignal
  /** Where closers go that must outlive the run (the inspector and its feed, with `--inspect`). */
  cleanups: Array<() => Promise<void>>
}

/** One queued message. */
interface Queued {
  sessionId: string
  /** Its place among the session's messages, from 1. */
  n: number
  queuedAt: number
}

/** What `--workers` did. */
export interface WorkersDemoResult {
  /** The answer of each job, by job id: which worker, and the reply's text. */
  answers: Map<string, { sessionId: string; n: number; workerId: string; text: string }>
  /** Jobs of this run not completed on the queue after the workers closed (0: nothing stuck). */
  unfinished: number
  /** Each worker process's exit code. */
  exits: Record<string, number | NodeJS.Signals>
}

/** The job's answer from the session log: its last try's worker and the reply after its entry. */
export async function answerOf(
  store: SessionStore,
  sessionId: string,
  jobId: string,
): Promise<{ workerId: string; text: string } | undefined> {
  const { entries } = await store.load(sessionId)
  const jobOf = (e: SessionEntry) =>
    e.type === 'custom' && e.customType === JOB_ENTRY_TYPE ? (e.data as JobEntryData) : undefined
  // a retried job has one entry per try: the last is the try that answered
  const from = entries.findLastIndex((e) => jobOf(e)?.jobId === jobId)
  const job = from < 0 ? undefined : jobOf(entries[from]!)
  if (job === undefined) return undefined
  let text: string | undefined
  for (const e of entries.slice(from + 1)) {
    if (jobOf(e)) break
    if (e.type === 'message' && e.message.role === 'assistant') text = textOf(e.message)
  }
  return text === undefined ? undefined : { workerId: job.workerId, text }
}

/** Jobs among `ids` in one of `states` on the demo's queue (pg-boss's job table). */
async function jobsIn(db: pg.Pool, ids: readonly string[], states: string[]): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    'SELECT id::text AS id FROM pgboss.job WHERE name = $1 AND id::text = ANY($2) AND state = ANY($3)',
    [DEMO_QUEUE, ids, states],
  )
  return r.rows.map((row) => row.id)
}

/** Resolves after {@link CHECK_MS}, when `signal` aborts, or when the `wake` it hands out is called. */
function woken(signal: AbortSignal | undefined, hand: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, CHECK_MS)
    signal?.addEventListener('abort', done, { once: true })
    hand(done)
  })
}

/** Start the worker processes, one after the other (each loads the packages: a second or two). */
async function startWorkers(input: WorkersDemoInput): Promise<WorkerProcess[]> {
  const started: WorkerProcess[] = []
  try {
    for (let i = 1; i <= input.workers.processes; i++) {
      started.push(
        await startWorkerProcess(
          {
            url: input.url,
            queue: DEMO_QUEUE,
            workerId: `worker-${i}`,
            concurrency: WORKER_CONCURRENCY,
            workspace: input.workspace,
            model: input.model,
            ...(input.contextFile
              ? {
                  contextFile: input.contextFile,
                  allowOutsideContextFile: input.allowOutsideContextFile,
                }
              : {}),
            ...(input.baseURL ? { baseURL: input.baseURL } : {}),
          },
          input.log,
        ),
      )
    }
  } catch (error) {
    await Promise.all(started.map(stopWorkerProcess))
    throw error
  }
  return started
}

/** Queue every session's messages (a session's in order; sessions side by side). */
async function queueMessages(input: WorkersDemoInput): Promise<Map<string, Queued>> {
  const queue = await agentQueue({ connection: input.url, queue: DEMO_QUEUE })
  const base = newSessionId()
  const queued = new Map<string, Queued>()
  try {
    await Promise.all(
      Array.from({ length: input.workers.sessions }, async (_, s) => {
        const sessionId = `${base}-s${s + 1}`
        for (const [i, text] of input.messages.entries()) {
          const id = await queue.enqueueMessage(sessionId, {
            role: 'user',
            content: [{ type: 'text', text }],
          })
          queued.set(id, { sessionId, n: i + 1, queuedAt: Date.now() })
        }
      }),
    )
  } finally {
    await queue.close()
  }
  return queued
}

/**
 * Wait until every queued job is answered, printing each answer as it comes: woken by the
 * workers' `run-end` notices, and every second by the queue (a notice can be missed). Rejects
 * when `signal` aborts or every worker has exited.
 */
async function awaitAnswers(
  input: WorkersDemoInput,
  db: pg.Pool,
  progress: ProgressListener,
  queued: Map<string, Queued>,
  workers: WorkerProcess[],
): Promise<WorkersDemoResult['answers']> {
  const { term } = input
  const answers: WorkersDemoResult['answers'] = new Map()
  const waiting = new Set(queued.keys())
  // runs that ended with a reply (a run that failed is retried: its job is not done)
  const ended = new Set<string>()
  let wake = () => {}
  const unsubscribe = progress.subscribe((n) => {
    if (n.type !== 'run-end' || !waiting.has(n.jobId) || n.stopReason === 'error') return
    ended.add(n.jobId)
    wake()
  })
  const allExited = Promise.all(workers.map((w) => w.exited)).then(() => 'exited' as const)
  try {
    while (waiting.size > 0) {
      if (input.signal?.aborted) throw input.signal.reason
      if ((await Promise.race([woken(input.signal, (w) => (wake = w)), allExited])) === 'exited') {
        throw new Error(`every worker process exited with ${waiting.size} message(s) unanswered`)
      }
      const done = new Set(await jobsIn(db, [...waiting], ['completed']))
      for (const id of [...waiting]) {
        if (!ended.has(id) && !done.has(id)) continue
        const q = queued.get(id)!
        const answer = await answerOf(input.stores.sessionStore!, q.sessionId, id)
        if (!answer) continue
        waiting.delete(id)
        answers.set(id, { sessionId: q.sessionId, n: q.n, ...answer })
        term.line(
          `${term.c.bold(answer.workerId)} answered ${q.sessionId} #${q.n} ${term.c.dim(`(${duration(Date.now() - q.queuedAt)} after queueing)`)}: ${abbreviate(answer.text.replace(/\s+/g, ' '), 90)}`,
        )
      }
    }
  } finally {
    unsubscribe()
  }
  return answers
}

/** The last two lines: who answered how many, and how the workers and the queue were left. */
function printSummary(term: Terminal, run: WorkersDemoResult, queued: number): void {
  const by = new Map<string, number>()
  for (const a of run.answers.values()) by.set(a.workerId, (by.get(a.workerId) ?? 0) + 1)
  const counts = [...by].sort().map(([w, n]) => `${w} ${n}`)
  const exits = Object.values(run.exits)
  term.line()
  term.line(`${term.c.bold('answered')} ${run.answers.size} of ${queued}: ${counts.join(', ')}`)
  term.line(
    `${term.c.bold('closed')}   ${exits.length} worker process(es) (exit ${exits.join(', ')}); ${run.unfinished} of the ${queued} jobs unfinished on the queue`,
  )
}

/**
 * `pnpm demo --store postgres:… --workers N [--sessions K]`: start N worker processes
 * (`@contextkit/worker`, each running the embedded runner on the Postgres stores), queue K
 * sessions' messages on the demo's queue, print which worker answered each message as the
 * answers come (woken by the workers' progress notices through `listenProgress`), then close the
 * workers and count the run's jobs still unfinished on the queue (0 when nothing is stuck).
 */
export async function runWorkersDemo(input: WorkersDemoInput): Promise<WorkersDemoResult> {
  const { term } = input
  const c = term.c
  const progress = await listenProgress({
    connection: input.url,
    onWarning: (w) => input.log(`progress: ${w.message}`),
  })
  input.cleanups.push(() => progress.close())
  if (input.inspect) {
    const inspector = await serveInspector({
      workspace: input.workspace,
      stores: input.stores,
      changes: (onChange) => progress.subscribe((n) => onChange(n.sessionId)),
      print: (line) => term.line(line),
    })
    input.cleanups.push(() => inspector.close())
  }
  term.line(`starting ${input.workers.processes} worker process(es) on the queue ${DEMO_QUEUE}…`)
  const workers = await startWorkers(input)
  const exits: WorkersDemoResult['exits'] = {}
  const db = new pg.Pool({ connectionString: input.url, max: 1 })
  db.on('error', () => {}) // an idle client's lost connection: the next query reports it
  try {
    term.line(
      `${c.bold('workers')}  ${workers.map((w) => `${w.workerId} (pid ${w.pid})`).join(', ')}: ready, ${WORKER_CONCURRENCY} runs at once each`,
    )
    const queued = await queueMessages(input)
    term.line(
      `${c.bold('queued')}   ${num(queued.size)} messages: ${input.workers.sessions} session(s) × ${input.messages.length}, each session's in order`,
    )
    for (const [i, text] of input.messages.entries())
      term.line(c.dim(`  #${i + 1} ${abbreviate(text, 100)}`))
    term.line()
    const answers = await awaitAnswers(input, db, progress, queued, workers)
    for (const w of workers) exits[w.workerId] = await stopWorkerProcess(w)
    const unfinished = (
      await jobsIn(db, [...queued.keys()], ['created', 'retry', 'active', 'failed'])
    ).length
    printSummary(term, { answers, unfinished, exits }, queued.size)
    return { answers, unfinished, exits }
  } finally {
    for (const w of workers)
      if (!(w.workerId in exits)) exits[w.workerId] = await stopWorkerProcess(w)
    await db.end()
  }
}
