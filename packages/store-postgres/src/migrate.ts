import { invalidArgument, parseWith } from '@contextkit/core'
import * as zm from 'zod/mini'
import { integerOf, isPostgresDb, type PostgresDb, txQuery, withTransaction } from './db.js'
import { SchemaVersionError } from './errors.js'
import { type TableName, TableNameCheck, tableName } from './identifiers.js'
import { type Migration, sessionMigrations, stateMigrations, traceMigrations } from './schema.js'
import { LEASES_SUFFIX, leaseMigrations } from './session-lease.js'

/** Default table of session entries (per-session counters live in `<table>_heads`). */
export const DEFAULT_SESSION_TABLE = 'contextkit_sessions'
/** Default table of per-agent state. */
export const DEFAULT_STATE_TABLE = 'contextkit_state'
/** Default table of run trace events (`postgresTrace`). */
export const DEFAULT_TRACE_TABLE = 'contextkit_traces'
/** Default table recording which schema versions were applied. */
export const DEFAULT_MIGRATIONS_TABLE = 'contextkit_migrations'
/**
 * Key of the transaction-scoped advisory lock (`pg_advisory_xact_lock`) every `migrate` takes
 * first, so workers starting together apply each migration exactly once.
 */
export const MIGRATION_LOCK_ID = 7_236_118_091

/** Options of {@link migrate}. Use the same table names as the stores. */
export interface MigrateOptions {
  /** Table of session entries, as given to `postgresSessionStore`. Default `contextkit_sessions`. */
  sessionTable?: string
  /** Table of agent state, as given to `postgresStateStore`. Default `contextkit_state`. */
  stateTable?: string
  /** Table of run trace events, as given to `postgresTrace`. Default `contextkit_traces`. */
  traceTable?: string
  /** Table recording applied schema versions. Default `contextkit_migrations`. */
  migrationsTable?: string
}

/** One migration {@link migrate} applied. */
export interface AppliedMigration {
  /** What was migrated, e.g. `sessions:contextkit_sessions`. */
  target: string
  /** The schema version it brought the target to. */
  version: number
  /** What the migration changed. */
  description: string
}

/** What {@link migrate} did: nothing (`applied: []`) when the schema was already current. */
export interface MigrateResult {
  /** The migrations applied, in order. */
  applied: AppliedMigration[]
}

/** The check of {@link MigrateOptions} (zod/mini, like the stores' option checks). */
export const MigrateOptionsCheck = zm.strictObject({
  sessionTable: zm.optional(TableNameCheck),
  stateTable: zm.optional(TableNameCheck),
  traceTable: zm.optional(TableNameCheck),
  migrationsTable: zm.optional(TableNameCheck),
})

interface Target {
  key: string
  migrations: Migration[]
}

function targets(session: TableName, state: TableName, trace: TableName): Target[] {
  return [
    { key: `sessions:${session.name}`, migrations: sessionMigrations(session) },
    { key: `state:${state.name}`, migrations: stateMigrations(state) },
    { key: `traces:${trace.name}`, migrations: traceMigrations(trace) },
    { key: `leases:${session.name}`, migrations: leaseMigrations(session.sibling(LEASES_SUFFIX)) },
  ]
}

/**
 * Create or update the tables of the stores and the trace table, idempotently. Every pending schema version is
 * applied in one transaction that first takes an advisory lock ({@link MIGRATION_LOCK_ID}), so
 * any number of workers may call `migrate` at start-up at once: the first applies, the others
 * wait and then find nothing to do. Versions applied are recorded in `contextkit_migrations`.
 *
 * @throws ValidationError for a bad `db` or table name.
 * @throws SchemaVersionError when the database is ahead of this package.
 * @throws StoreQueryError when the database refuses a statement.
 */
export async function migrate(
  db: PostgresDb,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  if (!isPostgresDb(db)) invalidArgument('migrate', 'db', 'an object with a query method', db)
  const opts = parseWith(MigrateOptionsCheck, options ?? {}, 'migrate options')
  const session = tableName(opts.sessionTable ?? DEFAULT_SESSION_TABLE, 'sessionTable')
  const state = tableName(opts.stateTable ?? DEFAULT_STATE_TABLE, 'stateTable')
  const trace = tableName(opts.traceTable ?? DEFAULT_TRACE_TABLE, 'traceTable')
  const log = tableName(opts.migrationsTable ?? DEFAULT_MIGRATIONS_TABLE, 'migrationsTable')
  const op = 'migrate'
  return withTransaction(db, op, async (tx) => {
    await txQuery(tx, op, 'SELECT pg_advisory_xact_lock($1::bigint)', [String(MIGRATION_LOCK_ID)])
    await txQuery(
      tx,
      op,
      `CREATE TABLE IF NOT EXISTS ${log.sql} (
        target text COLLATE "C" NOT NULL,
        version integer NOT NULL,
        description text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (target, version)
      )`,
    )
    const applied: AppliedMigration[] = []
    for (const target of targets(session, state, trace)) {
      const rows = await txQuery(
        tx,
        op,
        `SELECT coalesce(max(version), 0)::text AS version FROM ${log.sql} WHERE target = $1`,
        [target.key],
      )
      const current = integerOf(rows[0]?.version, 'version', op)
      const latest = target.migrations.at(-1)?.version ?? 0
      if (current > latest) {
        throw new SchemaVersionError(
          `${target.key} is at schema version ${current}; this package knows up to ${latest}`,
          { details: { target: target.key, current, latest } },
        )
      }
      for (const step of target.migrations) {
        if (step.version <= current) continue
        for (const statement of step.statements) await txQuery(tx, op, statement)
        await txQuery(
          tx,
          op,
          `INSERT INTO ${log.sql} (target, version, description) VALUES ($1, $2::integer, $3)`,
          [target.key, String(step.version), step.description],
        )
        applied.push({ target: target.key, version: step.version, description: step.description })
      }
    }
    return { applied }
  })
}
