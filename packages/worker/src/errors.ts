import { ContextkitError } from '@contextkit/core'

/**
 * The queue's database refused or failed a call (connection lost, server down, pg-boss's schema
 * not installable). The driver's or pg-boss's error is the `cause`. Nothing was enqueued.
 */
export class WorkerQueueError extends ContextkitError {
  /** The `code` of every error of this class: `worker_queue`. */
  static override readonly code: string = 'worker_queue'
}

/** A call after `close()`: the worker or queue no longer takes jobs. */
export class WorkerClosedError extends ContextkitError {
  /** The `code` of every error of this class: `worker_closed`. */
  static override readonly code: string = 'worker_closed'
}

/**
 * A job's run did not finish (`runAgent` stopped with `'error'`: the provider failed, the session
 * stayed busy past `sessionWaitMs`, the store failed). The run's error is the `cause`; the queue
 * retries the job (with backoff), and the retry resumes the session from its log.
 */
export class AgentJobError extends ContextkitError {
  /** The `code` of every error of this class: `worker_job_failed`. */
  static override readonly code: string = 'worker_job_failed'
}

/**
 * A running job given back to the queue by `close()` (its run aborted after the close's
 * `timeoutMs`): the queue hands it to another worker at once, which resumes the session.
 */
export class JobHandedBackError extends ContextkitError {
  /** The `code` of every error of this class: `worker_job_handed_back`. */
  static override readonly code: string = 'worker_job_handed_back'
}

/**
 * `listenProgress` could not start: the connection, or its `LISTEN`, failed (server down, wrong
 * credentials, a pool that cannot connect). The driver's error is the `cause`.
 */
export class ProgressListenError extends ContextkitError {
  /** The `code` of every error of this class: `worker_progress_listen`. */
  static override readonly code: string = 'worker_progress_listen'
}
