export type {
  PooledConnection,
  PoolLike,
  PostgresDb,
  Queryable,
  QueryResultLike,
  TransactionalDb,
} from './db.js'
export { withTransaction } from './db.js'
export {
  SchemaVersionError,
  StoreDataError,
  StoreNotMigratedError,
  StoreQueryError,
} from './errors.js'
export { MAX_TABLE_NAME_LENGTH } from './identifiers.js'
export type { AppliedMigration, MigrateOptions, MigrateResult } from './migrate.js'
export {
  DEFAULT_MIGRATIONS_TABLE,
  DEFAULT_SESSION_TABLE,
  DEFAULT_STATE_TABLE,
  DEFAULT_TRACE_TABLE,
  MIGRATION_LOCK_ID,
  migrate,
} from './migrate.js'
export { HEADS_SUFFIX } from './schema.js'
export type { HolderAlive, LeaseHolderIdentity } from './session-lease.js'
export { LEASES_SUFFIX, LeaseHolderIdentitySchema } from './session-lease.js'
export type { PostgresSessionStoreOptions } from './session-store.js'
export { INVALID_ENTRY_WARNING, postgresSessionStore } from './session-store.js'
export type { PostgresStateStoreOptions } from './state-store.js'
export { postgresStateStore } from './state-store.js'
export { TableNameSchema } from './table-name-schema.js'
export type {
  PostgresTrace,
  PostgresTraceOptions,
  PostgresTraceReaderOptions,
} from './trace-store.js'
export { postgresTrace, postgresTraceReader } from './trace-store.js'
