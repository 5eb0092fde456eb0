import { type ConstructorOptions, PgBoss } from 'pg-boss'
import { WorkerQueueError } from './errors.js'
import type { QueryPool, ResolvedQueueOptions } from './options.js'

/** How the queue is set up in pg-boss (created once; later calls keep the first settings). */
export interface QueueSettings {
  heartbeatSeconds: number
  retryLimit: number
  expireInSeconds: number
}

/** pg-boss's database adapter over a pool of yours (no LISTEN: pg-boss polls). */
function poolAdapter(pool: QueryPool): NonNullable<ConstructorOptions['db']> {
  return {
    executeSql: async (text, values) => {
      const result = await pool.query(text, values)
      return { rows: result.rows }
    },
  }
}

/** The database error of a queue call, as a {@link WorkerQueueError} (its `cause`). */
export function queueError(what: string, error: unknown): WorkerQueueError {
  const reason = error instanceof Error ? error.message : String(error)
  return new WorkerQueueError(`The job queue failed to ${what}: ${reason}`, { cause: error })
}

/**
 * Start pg-boss on the options' database (installing or migrating its schema) and create the
 * queue with the `key_strict_fifo` policy: one active job per session key, the rest waiting in
 * the order they were sent. `supervise` runs the maintenance that fails jobs whose heartbeat
 * stopped (workers only; an enqueue-only client leaves it to them).
 *
 * @throws WorkerQueueError when the database refuses.
 */
export async function startBoss(
  o: ResolvedQueueOptions,
  settings: QueueSettings,
  supervise: boolean,
): Promise<PgBoss> {
  const boss = new PgBoss({
    ...(o.pool === undefined
      ? { connectionString: o.connection, max: o.maxConnections, useListenNotify: true }
      : { db: poolAdapter(o.pool) }),
    schema: o.schema,
    supervise,
    schedule: false,
    superviseIntervalSeconds: 2,
    monitorIntervalSeconds: 2,
    registerInstance: false,
    openTelemetry: { enabled: false },
  })
  boss.on('error', () => undefined)
  try {
    await boss.start()
    if ((await boss.getQueue(o.queue)) === null) await createQueue(boss, o.queue, settings)
  } catch (error) {
    await boss.stop({ graceful: false, close: true, timeout: 1_000 }).catch(() => undefined)
    throw queueError('start', error)
  }
  return boss
}

/** Create the queue; another process creating it at the same moment is not an error. */
async function createQueue(boss: PgBoss, queue: string, settings: QueueSettings): Promise<void> {
  try {
    await boss.createQueue(queue, {
      policy: 'key_strict_fifo',
      notify: true,
      heartbeatSeconds: settings.heartbeatSeconds,
      retryLimit: settings.retryLimit,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: 30,
      expireInSeconds: settings.expireInSeconds,
    })
  } catch (error) {
    if ((await boss.getQueue(queue)) === null) throw error
  }
}
