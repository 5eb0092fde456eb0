// @contextkit/worker: agent runs as jobs on a Postgres job queue (pg-boss), any worker finishes
// any run. See the README for how to run workers and what happens when one dies.
export {
  AgentJobError,
  JobHandedBackError,
  ProgressListenError,
  WorkerClosedError,
  WorkerQueueError,
} from './errors.js'
export type { AgentJob, JobData, JobEntryData } from './jobs.js'
export { ApprovalsSchema, JOB_ENTRY_TYPE, JobDataSchema } from './jobs.js'
export type {
  ListenClient,
  ListenPool,
  ProgressListenerOptions,
  ProgressSubscriber,
  ProgressWarning,
} from './listen-options.js'
export { PROGRESS_WARNINGS } from './listen-options.js'
export type { ProgressListener } from './listen-progress.js'
export { listenProgress } from './listen-progress.js'
export type {
  AgentQueueOptions,
  AgentWorkerOptions,
  QueryPool,
  QueueConnectionOptions,
  WorkerRunOptions,
} from './options.js'
export {
  DEFAULT_HEARTBEAT_SECONDS,
  DEFAULT_PROGRESS_CHANNEL,
  DEFAULT_QUEUE,
} from './options.js'
export type { ProgressNotice } from './progress.js'
export { PROGRESS_NOTICE_TYPES, ProgressNoticeSchema } from './progress.js'
export type { AgentQueue } from './queue.js'
export { agentQueue } from './queue.js'
export type { AgentWorker } from './worker.js'
export { agentWorker } from './worker.js'
