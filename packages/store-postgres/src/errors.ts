import { ContextkitError } from '@contextkit/core'

/**
 * The database refused or failed a statement (connection lost, server down, permission denied,
 * disk full). `details.sqlState` carries the Postgres error code when the driver gave one; the
 * driver's error is the `cause`. Nothing of a failed batch or save was written.
 */
export class StoreQueryError extends ContextkitError {
  /** The `code` of every error of this class: `store_postgres_query`. */
  static override readonly code: string = 'store_postgres_query'
}

/**
 * A table the store needs does not exist: run {@link migrate} (with the same table names) before
 * using the store.
 */
export class StoreNotMigratedError extends StoreQueryError {
  /** The `code` of every error of this class: `store_postgres_not_migrated`. */
  static override readonly code: string = 'store_postgres_not_migrated'
}

/**
 * The database holds a newer schema version than this package knows, written by a newer release.
 * `migrate` leaves it untouched; upgrade the package instead.
 */
export class SchemaVersionError extends ContextkitError {
  /** The `code` of every error of this class: `store_postgres_schema_version`. */
  static override readonly code: string = 'store_postgres_schema_version'
}

/**
 * A row in the database does not hold what the store wrote there (edited by hand, or a
 * driver configured to return other types). Session loads skip such rows with a warning.
 */
export class StoreDataError extends ContextkitError {
  /** The `code` of every error of this class: `store_postgres_data`. */
  static override readonly code: string = 'store_postgres_data'
}
