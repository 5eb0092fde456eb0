import { hostname } from 'node:os'
import type { RunAgentOptions } from '@contextkit/agent-loop'
import type { SessionStore } from '@contextkit/core'
import { parseWith, ValidationError } from '@contextkit/core'
import * as z from 'zod'
import type { AgentJob } from './jobs.js'

/** The pg-boss queue the jobs go to, unless `queue` says another. */
export const DEFAULT_QUEUE = 'contextkit_agent_runs'
/** The LISTEN/NOTIFY channel progress is published on, unless `progressChannel` says another. */
export const DEFAULT_PROGRESS_CHANNEL = 'contextkit_agent_progress'
/** Seconds without a heartbeat after which a running job counts as dead and is retried. */
export const DEFAULT_HEARTBEAT_SECONDS = 10

/** Anything with `query(text, values)` resolving `{ rows }`: a `pg` `Pool`. */
export interface QueryPool {
  /** Run one statement. */
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>
}

/** What `run` returns for a job: `runAgent`'s options, less those the worker sets itself. */
export type WorkerRunOptions = Omit<RunAgentOptions, 'session' | 'messages' | 'resume'>

/** Where the queue lives: exactly one of `connection` and `pool`. */
export interface QueueConnectionOptions {
  /**
   * A PostgreSQL connection string: pg-boss opens its own pool (`maxConnections`) plus one
   * connection that LISTENs for new jobs.
   */
  connection?: string
  /** A `pg` `Pool` of yours instead: no LISTEN connection then, new jobs are found by polling. */
  pool?: QueryPool
  /** pg-boss's pool size with `connection`. Default `4`. */
  maxConnections?: number
  /** The queue's name (letters, digits, `_`, `-`, `.`). Default {@link DEFAULT_QUEUE}. */
  queue?: string
  /** The pg-boss schema. Default `pgboss`. */
  schema?: string
}

/** Options of `agentQueue` (the enqueue side): where the queue lives. */
export type AgentQueueOptions = QueueConnectionOptions

/** Options of `agentWorker`. */
export interface AgentWorkerOptions extends QueueConnectionOptions {
  /** The sessions: the store every worker shares (`postgresSessionStore` on the same database). */
  store: SessionStore
  /** The `runAgent` options for one job (provider, model, tools, …); called for every try. */
  run: (job: AgentJob) => WorkerRunOptions | Promise<WorkerRunOptions>
  /** Jobs this worker runs at once. Default `4`. */
  concurrency?: number
  /**
   * A running job whose worker sends no heartbeat for this many seconds (it was killed, lost its
   * connection, or hangs) is failed and retried by another worker (pg-boss `heartbeatSeconds`,
   * at least 10). Default {@link DEFAULT_HEARTBEAT_SECONDS}.
   */
  heartbeatSeconds?: number
  /** How often idle slots look for jobs, ms (at least 500). Default `500`. */
  pollingIntervalMs?: number
  /** Tries after the first before a job fails for good (holding back its session). Default `20`. */
  retryLimit?: number
  /** The longest one job may run, seconds. Default `3600`. */
  expireInSeconds?: number
  /** The channel progress is published on (a SQL identifier). Default {@link DEFAULT_PROGRESS_CHANNEL}. */
  progressChannel?: string
  /** This worker's id in progress events and job entries. Default `<host>:<pid>`. */
  workerId?: string
}

const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', `expected ${what}`)
const object = (what: string, check: (v: Record<string, unknown>) => boolean) =>
  z.custom<object>(
    (v) => typeof v === 'object' && v !== null && check(v as Record<string, unknown>),
    `expected ${what}`,
  )

const ConnectionShape = {
  connection: z.string().min(1).optional(),
  pool: object('a pg Pool (query)', (p) => typeof p.query === 'function').optional(),
  maxConnections: z.number().int().min(2).max(1000).optional(),
  queue: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'letters, digits, _, - and . (1 to 100)')
    .optional(),
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,49}$/, 'a lower-case SQL identifier')
    .optional(),
}

const QueueOptionsSchema = z.strictObject(ConnectionShape)

const WorkerOptionsSchema = z.strictObject({
  ...ConnectionShape,
  store: object(
    'a SessionStore',
    (s) => typeof s.load === 'function' && typeof s.append === 'function',
  ),
  run: fn('a function (job) => runAgent options'),
  concurrency: z.number().int().min(1).max(1000).optional(),
  heartbeatSeconds: z.number().int().min(10).max(86_400).optional(),
  pollingIntervalMs: z.number().int().min(500).max(3_600_000).optional(),
  retryLimit: z.number().int().min(0).max(10_000).optional(),
  expireInSeconds: z.number().int().min(1).max(86_400).optional(),
  progressChannel: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier')
    .optional(),
  workerId: z.string().min(1).max(200).optional(),
})

/** Queue options with every default resolved. */
export interface ResolvedQueueOptions {
  connection: string | undefined
  pool: QueryPool | undefined
  maxConnections: number
  queue: string
  schema: string
}

/** Worker options with every default resolved. */
export interface ResolvedWorkerOptions extends ResolvedQueueOptions {
  store: SessionStore
  run: AgentWorkerOptions['run']
  concurrency: number
  heartbeatSeconds: number
  pollingIntervalMs: number
  retryLimit: number
  expireInSeconds: number
  progressChannel: string
  workerId: string
}

function oneConnection(o: { connection?: unknown; pool?: unknown }, what: string): void {
  if ((o.connection === undefined) === (o.pool === undefined)) {
    throw new ValidationError(
      `Invalid ${what}: give exactly one of connection (a connection string) and pool (a pg Pool)`,
      [{ path: 'connection', message: 'exactly one of connection and pool' }],
    )
  }
}

function resolveConnection(o: z.infer<typeof QueueOptionsSchema>): ResolvedQueueOptions {
  return {
    connection: o.connection,
    pool: o.pool as QueryPool | undefined,
    maxConnections: o.maxConnections ?? 4,
    queue: o.queue ?? DEFAULT_QUEUE,
    schema: o.schema ?? 'pgboss',
  }
}

/**
 * Check `agentQueue`'s options: unknown keys, bad values and a missing or doubled connection are
 * a `ValidationError` naming the option.
 */
export function resolveQueueOptions(options: unknown): ResolvedQueueOptions {
  const o = parseWith(QueueOptionsSchema, options, 'agentQueue options')
  oneConnection(o, 'agentQueue options')
  return resolveConnection(o)
}

/** Check `agentWorker`'s options the same way, and resolve every default. */
export function resolveWorkerOptions(options: unknown): ResolvedWorkerOptions {
  const o = parseWith(WorkerOptionsSchema, options, 'agentWorker options')
  oneConnection(o, 'agentWorker options')
  return {
    ...resolveConnection(o),
    store: o.store as SessionStore,
    run: o.run as AgentWorkerOptions['run'],
    concurrency: o.concurrency ?? 4,
    heartbeatSeconds: o.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS,
    pollingIntervalMs: o.pollingIntervalMs ?? 500,
    retryLimit: o.retryLimit ?? 20,
    expireInSeconds: o.expireInSeconds ?? 3600,
    progressChannel: o.progressChannel ?? DEFAULT_PROGRESS_CHANNEL,
    workerId: o.workerId ?? `${hostname()}:${process.pid}`,
  }
}

/** The keys `run` may not return: the worker sets them from the job. */
export const WORKER_SET_KEYS = ['session', 'messages', 'resume'] as const

/** Refuse `run`'s result when it sets what the worker sets (a `ValidationError`). */
export function checkRunOptions(value: unknown): WorkerRunOptions {
  if (typeof value !== 'object' || value === null) {
    throw new ValidationError('Invalid run result: expected runAgent options (an object)', [
      { path: '(root)', message: 'expected an object' },
    ])
  }
  const set = WORKER_SET_KEYS.filter((k) => k in value)
  if (set.length > 0) {
    throw new ValidationError(
      `Invalid run result: ${set.join(', ')}: the worker sets these from the job (leave them out)`,
      set.map((k) => ({ path: k, message: 'set by the worker' })),
    )
  }
  return value as WorkerRunOptions
}
