import { MessageSchema, SessionIdSchema } from '@contextkit/core/schemas'
import * as z from 'zod'

/** A person's decision on a paused tool call, by call id (as `runAgent({ resume: { approvals } })`). */
export const ApprovalsSchema = z.record(
  z.string().min(1),
  z.union([
    z.strictObject({ approve: z.literal(true) }),
    z.strictObject({ approve: z.literal(false), reason: z.string().optional() }),
  ]),
)

/** What a job carries in the queue (version 1): a new message, or decisions on paused calls. */
export const JobDataSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    v: z.literal(1),
    kind: z.literal('message'),
    sessionId: SessionIdSchema,
    message: MessageSchema,
  }),
  z.strictObject({
    v: z.literal(1),
    kind: z.literal('approval'),
    sessionId: SessionIdSchema,
    approvals: ApprovalsSchema,
  }),
])

/** A job's payload in the queue ({@link JobDataSchema}). */
export type JobData = z.infer<typeof JobDataSchema>

/** One job as the worker hands it to your `run` function. */
export type AgentJob = JobData & {
  /** The queue's job id (stable across retries). */
  id: string
  /** 0 on the first try; 1 and up when the job is retried (its worker died, or it was handed back). */
  attempt: number
  /** The id of the worker running it (`workerId`). */
  workerId: string
}

/** The `customType` of the session entry a worker writes when it starts a job (`data`: {@link JobEntryData}). */
export const JOB_ENTRY_TYPE = 'contextkit.worker.job'

/** The data of a {@link JOB_ENTRY_TYPE} entry: which job, which try, which worker. */
export interface JobEntryData {
  /** The queue's job id. */
  jobId: string
  /** Which try (0 the first). */
  attempt: number
  /** The worker that ran it. */
  workerId: string
}
