import { isDeepStrictEqual } from 'node:util'
import {
  type AgentResult,
  type ApprovalAnswer,
  lastEntryId,
  runAgent,
} from '@contextkit/agent-loop'
import type { Message, SessionEntry, SessionStore } from '@contextkit/core'
import { randomId } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { AgentJobError, JobHandedBackError } from './errors.js'
import { type AgentJob, JOB_ENTRY_TYPE, type JobEntryData } from './jobs.js'
import { checkRunOptions, type ResolvedWorkerOptions } from './options.js'
import { noticeOf, type ProgressNotice, progressPublisher } from './progress.js'

/** What running one job needs beside the job. */
export interface JobContext {
  options: ResolvedWorkerOptions
  /** Publish one progress payload (NOTIFY on the progress channel). */
  notify(payload: string): Promise<void>
}

/** How a job's run begins: the messages it adds and what it takes up. */
interface RunStart {
  messages: Message[]
  resume: true | { approvals: Record<string, ApprovalAnswer> } | undefined
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v))

/** Whether the job's message is in the log after the job's first entry (a dead try saved it). */
function messageSaved(
  entries: readonly SessionEntry[],
  job: AgentJob & { kind: 'message' },
): boolean {
  const first = entries.findIndex(
    (e) =>
      e.type === 'custom' &&
      e.customType === JOB_ENTRY_TYPE &&
      (e.data as JobEntryData)?.jobId === job.id,
  )
  if (first === -1) return false
  const wanted = plain(job.message)
  return entries
    .slice(first + 1)
    .some((e) => e.type === 'message' && isDeepStrictEqual(plain(e.message), wanted))
}

/**
 * Decide how the job's run begins and record the try in the session (a `custom` entry,
 * {@link JOB_ENTRY_TYPE}). A message job adds its message, unless an earlier try of the same job
 * saved it already (its worker died after the write-ahead append): then the run takes up the
 * session instead (`resume: true`), so each message is in the log exactly once. An approval job
 * resumes with its decisions.
 */
async function beginJob(store: SessionStore, job: AgentJob): Promise<RunStart> {
  // a retry reads the whole log: the tail a resume loads may start after the job's first entry
  const { entries } =
    job.attempt > 0 || store.loadTail === undefined
      ? await store.load(job.sessionId)
      : await store.loadTail(job.sessionId)
  let start: RunStart
  if (job.kind === 'approval') start = { messages: [], resume: { approvals: job.approvals } }
  else if (job.attempt > 0 && messageSaved(entries, job)) start = { messages: [], resume: true }
  else start = { messages: [job.message], resume: undefined }
  const data: JobEntryData = { jobId: job.id, attempt: job.attempt, workerId: job.workerId }
  const marker: SessionEntry = {
    type: 'custom',
    id: randomId(),
    parentId: lastEntryId(entries),
    ts: new Date().toISOString(),
    customType: JOB_ENTRY_TYPE,
    data,
  }
  const header = entries.some((e) => e.type === 'session') ? [] : [sessionHeader(job.sessionId)]
  await store.append(job.sessionId, [...header, marker])
  return start
}

/**
 * Run one job: ask `run` for the options, begin ({@link beginJob}), run the agent on the session
 * (it takes the session's lease, waits while another run holds it, and finishes a crashed run by
 * the durable-run rules), publish progress, and settle.
 *
 * @throws JobHandedBackError when `signal` aborted the run (the worker is closing).
 * @throws AgentJobError when the run stopped with `'error'` (the queue retries the job).
 */
export async function runJob(
  ctx: JobContext,
  job: AgentJob,
  signal: AbortSignal,
): Promise<AgentResult> {
  const { store } = ctx.options
  const options = checkRunOptions(await ctx.options.run(job))
  const start = await beginJob(store, job)
  const signals = options.signal === undefined ? [signal] : [signal, options.signal]
  const run = runAgent({
    ...options,
    session: { store, id: job.sessionId },
    messages: start.messages,
    ...(start.resume === undefined ? {} : { resume: start.resume }),
    signal: AbortSignal.any(signals),
  })
  const base = {
    v: 1 as const,
    sessionId: job.sessionId,
    jobId: job.id,
    attempt: job.attempt,
    workerId: job.workerId,
    runId: run.runId,
  }
  const progress = progressPublisher(ctx.notify)
  progress.publish({ ...base, type: 'job-start', at: Date.now() } satisfies ProgressNotice)
  for await (const event of run.events) {
    const notice = noticeOf(event, base)
    if (notice) progress.publish(notice)
  }
  const result = await run.result
  await progress.flushed()
  if (signal.aborted) {
    throw new JobHandedBackError(
      `Job ${job.id} (session "${job.sessionId}") was handed back: the worker is closing`,
    )
  }
  if (result.stopReason === 'error') {
    const reason = result.error instanceof Error ? result.error.message : String(result.error)
    throw new AgentJobError(`Job ${job.id} (session "${job.sessionId}") failed: ${reason}`, {
      cause: result.error,
      details: { jobId: job.id, sessionId: job.sessionId, attempt: job.attempt },
    })
  }
  return result
}
