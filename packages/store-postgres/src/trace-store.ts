import {
  assertSessionId,
  invalidArgument,
  parseWith,
  type Trace,
  type TraceReader,
} from '@contextkit/core'
import { parseTraceEvent, traceEventText } from '@contextkit/core/store'
import * as zm from 'zod/mini'
import { integerOf, isPostgresDb, type PostgresDb, runQuery } from './db.js'
import { TableNameCheck, tableName } from './identifiers.js'
import { DEFAULT_TRACE_TABLE } from './migrate.js'

/** Options of {@link postgresTrace}. */
export interface PostgresTraceOptions {
  /** Table of trace events; pass the same name to `migrate({ traceTable })`. Default `contextkit_traces`. */
  table?: string
  /** Record message lists in full. Default `false`: roles and digests, like `jsonlTrace`. */
  full?: boolean
  /** Clock, injectable for tests. Default `Date.now`. */
  now?: () => number
}

/** Options of {@link postgresTraceReader}. */
export interface PostgresTraceReaderOptions {
  /** Table of trace events, as given to {@link postgresTrace}. Default `contextkit_traces`. */
  table?: string
  /** Rows fetched per query while reading. Default `500`. */
  batchRows?: number
}

/** A run trace written to a Postgres table, one row per event. */
export interface PostgresTrace extends Trace {
  /** The session the events belong to. */
  readonly sessionId: string
  /** Events the database refused or could not be reached for; they are not stored. */
  readonly failures: number
  /** Values left out of written events (cut at depth, cycles, throwing getters). */
  readonly dropped: number
  /** Resolves when every event recorded so far is written (or counted in `failures`). */
  flush(): Promise<void>
}

/** The check of {@link PostgresTraceOptions}. */
export const TraceOptionsCheck = zm.strictObject({
  table: zm.optional(TableNameCheck),
  full: zm.optional(zm.boolean()),
  now: zm.optional(zm.custom<() => number>((v) => typeof v === 'function')),
})

/** The check of {@link PostgresTraceReaderOptions}. */
export const TraceReaderOptionsCheck = zm.strictObject({
  table: zm.optional(TableNameCheck),
  batchRows: zm.optional(zm.int().check(zm.positive(), zm.lte(10_000))),
})

// 3 parameters per row, well under Postgres' 65,535 per statement.
const ROWS_PER_INSERT = 200

/**
 * A {@link @contextkit/core#Trace} for one session that writes each event as a row of a
 * Postgres table (the same `{ts, seq, stage, data}` text `jsonlTrace` writes as a line), so the
 * inspector can read a Postgres-backed app's runs with {@link postgresTraceReader}.
 *
 * `record` never throws and never waits: events are queued and written in order, in batches, by
 * one insert at a time. `flush()` resolves when all are written; call it before the process
 * exits. An event the database refuses is counted in `failures` (a trace never fails a run).
 * Run `migrate` first (it creates the table).
 *
 * @throws ValidationError for a bad `db`, session id or option.
 */
export function postgresTrace(
  db: PostgresDb,
  sessionId: string,
  options: PostgresTraceOptions = {},
): PostgresTrace {
  if (!isPostgresDb(db)) invalidArgument('postgresTrace', 'db', 'an object with a query method', db)
  assertSessionId(sessionId, 'postgresTrace')
  const opts = parseWith(TraceOptionsCheck, options ?? {}, 'postgresTrace options')
  const table = tableName(opts.table ?? DEFAULT_TRACE_TABLE, 'table').sql
  const drops = { count: 0 }
  const queue: Array<{ stage: string; text: string }> = []
  let seq = 0
  let failures = 0
  let writing: Promise<void> = Promise.resolve()
  let scheduled = false

  const writeBatch = async (batch: Array<{ stage: string; text: string }>): Promise<void> => {
    const params: unknown[] = [sessionId]
    const rows = batch.map((event) => {
      params.push(event.stage, event.text)
      return `($1, $${params.length - 1}, $${params.length}::json)`
    })
    try {
      await runQuery(
        db,
        'postgresTrace',
        `INSERT INTO ${table} (session_id, stage, event) VALUES ${rows.join(', ')}`,
        params,
      )
    } catch {
      failures += batch.length
    }
  }
  const drain = async (): Promise<void> => {
    scheduled = false
    while (queue.length > 0) await writeBatch(queue.splice(0, ROWS_PER_INSERT))
  }
  return {
    sessionId,
    get failures() {
      return failures
    },
    get dropped() {
      return drops.count
    },
    record(stage, data = {}) {
      const now = opts.now ?? Date.now
      const text = traceEventText(stage, data, seq++, { now, full: opts.full === true, drops })
      queue.push({ stage: typeof stage === 'string' ? stage : 'unknown', text })
      if (scheduled) return
      scheduled = true
      writing = writing.then(drain)
    },
    async flush() {
      // every queued event has a drain scheduled or running: wait until none is left
      do await writing
      while (scheduled || queue.length > 0)
    },
  }
}

/**
 * A {@link @contextkit/core#TraceReader} over the table {@link postgresTrace} writes: pass it as
 * the inspector's `traces`. A position is the table's row id (`0`: no trace), so `end` is one
 * indexed lookup and both directions read `batchRows` rows per query: memory does not grow with
 * the trace, and a long trace is read from its newest events without reading the rest.
 *
 * @throws ValidationError for a bad `db`, session id or option.
 */
export function postgresTraceReader(
  db: PostgresDb,
  options: PostgresTraceReaderOptions = {},
): TraceReader {
  if (!isPostgresDb(db)) {
    invalidArgument('postgresTraceReader', 'db', 'an object with a query method', db)
  }
  const opts = parseWith(TraceReaderOptionsCheck, options ?? {}, 'postgresTraceReader options')
  const table = tableName(opts.table ?? DEFAULT_TRACE_TABLE, 'table').sql
  const batch = opts.batchRows ?? 500
  const op = 'postgresTraceReader'
  const page = async (sql: string, params: unknown[]) => {
    const rows = await runQuery(db, op, sql, params)
    return rows.map((row) => ({
      id: integerOf(row.pos, 'id', op),
      event: typeof row.event === 'string' ? parseTraceEvent(row.event) : null,
    }))
  }
  return {
    async end(sessionId) {
      assertSessionId(sessionId, op)
      const rows = await runQuery(
        db,
        op,
        `SELECT coalesce(max(id), 0)::text AS id FROM ${table} WHERE session_id = $1`,
        [sessionId],
      )
      return integerOf(rows[0]?.id, 'id', op)
    },
    async readForward(sessionId, from, end, onEvent, stages) {
      assertSessionId(sessionId, op)
      const only = stages ? [...stages] : undefined
      const stageFilter = only
        ? ` AND stage IN (${only.map((_, i) => `$${i + 5}`).join(', ') || 'NULL'})`
        : ''
      let at = from
      for (;;) {
        const rows = await page(
          `SELECT id::text AS pos, event::text AS event FROM ${table}
           WHERE session_id = $1 AND id > $2 AND id <= $3${stageFilter}
           ORDER BY id LIMIT $4`,
          [sessionId, String(at), String(end), batch, ...(only ?? [])],
        )
        for (const row of rows) if (row.event) onEvent(row.event)
        if (rows.length < batch) return Math.max(at, end)
        at = rows.at(-1)?.id ?? end
      }
    },
    async readBackward(sessionId, end, onEvent) {
      assertSessionId(sessionId, op)
      let before = end + 1
      for (;;) {
        const rows = await page(
          `SELECT id::text AS pos, event::text AS event FROM ${table}
           WHERE session_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
          [sessionId, String(before), batch],
        )
        for (const row of rows) if (row.event && !onEvent(row.event)) return
        if (rows.length < batch) return
        before = rows.at(-1)?.id ?? 0
      }
    },
  }
}
