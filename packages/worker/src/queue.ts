import type { ApprovalAnswer } from '@contextkit/agent-loop'
import type { Message } from '@contextkit/core'
import { parseWith } from '@contextkit/core'
import type { PgBoss } from 'pg-boss'
import { queueError, startBoss } from './boss.js'
import { WorkerClosedError } from './errors.js'
import { type JobData, JobDataSchema } from './jobs.js'
import {
  type AgentQueueOptions,
  DEFAULT_HEARTBEAT_SECONDS,
  type ResolvedQueueOptions,
  resolveQueueOptions,
} from './options.js'

/** The enqueue side: add work for sessions; any worker on the same queue runs it. */
export interface AgentQueue {
  /**
   * Queue a new message for a session; resolves the job id. Jobs of one session run one at a
   * time, in the order they were queued, on whichever worker is free.
   *
   * @throws ValidationError for a bad session id or message (nothing queued).
   * @throws WorkerQueueError when the database refuses; WorkerClosedError after `close()`.
   */
  enqueueMessage(sessionId: string, message: Message): Promise<string>
  /**
   * Queue decisions on the calls a session's run paused on (`stopReason: 'awaiting_approval'`),
   * by tool call id; resolves the job id. Runs after the session's earlier jobs.
   *
   * @throws ValidationError for a bad session id or decisions (nothing queued).
   * @throws WorkerQueueError when the database refuses; WorkerClosedError after `close()`.
   */
  enqueueApproval(sessionId: string, approvals: Record<string, ApprovalAnswer>): Promise<string>
  /** Close the queue's connections (jobs already queued stay queued). */
  close(): Promise<void>
}

/** Send one job on `boss`, keyed by its session (the queue's one-active-per-key policy). */
export async function sendJob(boss: PgBoss, queue: string, data: JobData): Promise<string> {
  let id: string | null
  try {
    id = await boss.send(queue, data, { singletonKey: data.sessionId })
  } catch (error) {
    throw queueError('queue a job', error)
  }
  if (id === null) throw queueError('queue a job', new Error('pg-boss queued nothing'))
  return id
}

/** The two enqueue calls over a started pg-boss, refusing once `closed()` says so. */
export function enqueueCalls(
  boss: PgBoss,
  o: ResolvedQueueOptions,
  closed: () => boolean,
): Pick<AgentQueue, 'enqueueMessage' | 'enqueueApproval'> {
  const send = async (data: unknown, what: string): Promise<string> => {
    const job = parseWith(JobDataSchema, data, what)
    if (closed()) throw new WorkerClosedError(`${what}: the queue is closed`)
    return sendJob(boss, o.queue, job)
  }
  return {
    enqueueMessage: (sessionId, message) =>
      send({ v: 1, kind: 'message', sessionId, message }, 'enqueueMessage'),
    enqueueApproval: (sessionId, approvals) =>
      send({ v: 1, kind: 'approval', sessionId, approvals }, 'enqueueApproval'),
  }
}

/**
 * Open the enqueue side of the agent job queue (a web server that takes messages and runs no
 * agent). Installs pg-boss's schema and the queue when they are missing. Holds pg-boss's pool
 * (`maxConnections`, 4 by default) plus one LISTEN connection, or only your `pool`.
 *
 * @throws ValidationError for bad options; WorkerQueueError when the database refuses.
 */
export async function agentQueue(options: AgentQueueOptions): Promise<AgentQueue> {
  const o = resolveQueueOptions(options)
  const settings = {
    heartbeatSeconds: DEFAULT_HEARTBEAT_SECONDS,
    retryLimit: 20,
    expireInSeconds: 3600,
  }
  const boss = await startBoss(o, settings, false)
  let closed = false
  return {
    ...enqueueCalls(boss, o, () => closed),
    async close() {
      if (closed) return
      closed = true
      await boss.stop({ graceful: false, close: true, timeout: 1_000 })
    },
  }
}
