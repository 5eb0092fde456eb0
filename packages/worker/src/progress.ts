import type { AgentEvent } from '@contextkit/agent-loop'
import { SessionIdSchema } from '@contextkit/core/schemas'
import * as z from 'zod'

/**
 * One progress notice, published as JSON on the progress channel (LISTEN/NOTIFY) by the worker
 * running the job: the job started, the run took up a crashed or paused run, a step ended, the
 * run ended. `v` is the format's version.
 */
export interface ProgressNotice {
  /** The notice format's version. */
  v: 1
  /** What happened. */
  type: (typeof PROGRESS_NOTICE_TYPES)[number]
  /** The session the job advances. */
  sessionId: string
  /** The queue's job id. */
  jobId: string
  /** Which try of the job (0 the first). */
  attempt: number
  /** The worker running it. */
  workerId: string
  /** The run's id (`runAgent`'s `runId`). */
  runId: string
  /** The step that ended (`step-end`). */
  step?: number
  /** Why the run stopped (`run-end`). */
  stopReason?: string
  /** Milliseconds since the epoch, on the worker's clock. */
  at: number
}

/** The kinds of progress notice, in the order a job gives them. */
export const PROGRESS_NOTICE_TYPES = ['job-start', 'run-resume', 'step-end', 'run-end'] as const

/**
 * The schema of a {@link ProgressNotice} as a listener reads it off the channel: version 1, the
 * fields checked; keys a later minor release adds are dropped, not refused.
 */
export const ProgressNoticeSchema: z.ZodType<ProgressNotice> = z.object({
  v: z.literal(1),
  type: z.enum(PROGRESS_NOTICE_TYPES),
  sessionId: SessionIdSchema,
  jobId: z.string().min(1),
  attempt: z.number().int().min(0),
  workerId: z.string().min(1),
  runId: z.string().min(1),
  step: z.number().int().min(0).optional(),
  stopReason: z.string().min(1).optional(),
  at: z.number().finite(),
})

/** The notice an event gives, when it gives one (start, resume, step end, run end). */
export function noticeOf(
  event: AgentEvent,
  base: Omit<ProgressNotice, 'type' | 'at'>,
): ProgressNotice | undefined {
  const at = Date.now()
  if (event.type === 'run-resume') return { ...base, type: 'run-resume', at }
  if (event.type === 'step-end') return { ...base, type: 'step-end', step: event.step, at }
  if (event.type === 'run-end') {
    return { ...base, type: 'run-end', stopReason: event.result.stopReason, at }
  }
  return undefined
}

/**
 * Publishes notices in order without holding up the run: each is sent after the one before;
 * a failed send is dropped (progress is a view, the session log is the record).
 */
export function progressPublisher(send: (payload: string) => Promise<void>): {
  publish(notice: ProgressNotice): void
  flushed(): Promise<void>
} {
  let chain = Promise.resolve()
  return {
    publish(notice) {
      const payload = JSON.stringify(notice)
      chain = chain.then(() => send(payload)).catch(() => undefined)
    },
    flushed: () => chain,
  }
}
