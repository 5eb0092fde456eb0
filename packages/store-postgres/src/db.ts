import { assertObject, assertString, ContextkitError, invalidArgument } from '@contextkit/core'
import { StoreDataError, StoreNotMigratedError, StoreQueryError } from './errors.js'

/** What every supported driver's `query` resolves to: at least the result rows. */
export interface QueryResultLike {
  /** The result rows. */
  rows: unknown[]
}

/**
 * One thing that runs SQL: `query(text, params)` with `$1…$n` placeholders bound to `params`.
 * A `pg` `Client`, a `pg` `PoolClient`, PGlite, and a PGlite transaction all are one.
 */
export interface Queryable {
  /** Run one parameterized statement (`$1`, `$2`, … in `text`). */
  query(text: string, params?: unknown[]): Promise<QueryResultLike>
}

/**
 * A database that runs a callback inside one transaction on one connection (PGlite's
 * `transaction`). Wrap any other driver or pool in this shape to control transactions yourself.
 */
export interface TransactionalDb extends Queryable {
  /** Run `fn` inside one transaction; commits when it resolves, rolls back when it rejects. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
}

/** A connection checked out of a pool; `release(error)` discards a broken one. */
export interface PooledConnection extends Queryable {
  /** Give the connection back to the pool; with an error (or `true`), discard it instead. */
  release(error?: Error | boolean): void
}

/** A `pg` `Pool`: `connect()` checks one client out (recognized by its numeric `totalCount`). */
export interface PoolLike extends Queryable {
  /** Check one connection out of the pool. */
  connect(): Promise<PooledConnection>
  /** Connections the pool holds (how a pool is told apart from a client). */
  readonly totalCount: number
}

/**
 * What the stores and {@link migrate} accept, and how each runs a transaction:
 *
 * - an object with `transaction(fn)` (PGlite, or your own wrapper): that method, as is;
 * - a `pg` `Pool` (`connect()` plus a numeric `totalCount`): one client is checked out per
 *   transaction, `BEGIN`/`COMMIT` run on it, and it is released (discarded after a failure that
 *   left it unusable); plain reads go through `pool.query`;
 * - anything else with `query` (a `pg` `Client`, a checked-out `PoolClient`): a single
 *   connection. The store serializes its own operations on it (a transaction on a shared
 *   connection would otherwise swallow the other callers' statements). Do not run other
 *   transactions on that connection at the same time; prefer a pool with several workers.
 */
export type PostgresDb = Queryable | TransactionalDb | PoolLike

type DbKind = 'transactional' | 'pool' | 'single'

function kindOf(db: PostgresDb): DbKind {
  const candidate = db as Partial<TransactionalDb & PoolLike>
  if (typeof candidate.transaction === 'function') return 'transactional'
  if (typeof candidate.connect === 'function' && typeof candidate.totalCount === 'number') {
    return 'pool'
  }
  return 'single'
}

/** Whether `db` can be used as a {@link PostgresDb}: an object with a `query` method. */
export function isPostgresDb(db: unknown): db is PostgresDb {
  return (
    typeof db === 'object' && db !== null && typeof (db as { query?: unknown }).query === 'function'
  )
}

// One queue per single connection, shared by every store built on it.
const queues = new WeakMap<object, Promise<unknown>>()

function serialized<T>(db: object, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(db) ?? Promise.resolve()
  const run = previous.then(fn, fn)
  queues.set(
    db,
    run.catch(() => undefined),
  )
  return run
}

/** Postgres SQLSTATE of a driver error, when it has one (`pg` and PGlite both set `code`). */
export function sqlStateOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

const RETRYABLE = new Set(['40001', '40P01']) // serialization failure, deadlock

/**
 * Turn a driver error into a typed one: our own errors pass through, an undefined table becomes
 * {@link StoreNotMigratedError}, anything else a {@link StoreQueryError} with the `cause`.
 */
export function storeError(error: unknown, operation: string): ContextkitError {
  if (ContextkitError.isInstance(error)) return error
  const sqlState = sqlStateOf(error)
  const reason = error instanceof Error ? error.message : String(error)
  const details = { operation, ...(sqlState ? { sqlState } : {}) }
  if (sqlState === '42P01') {
    return new StoreNotMigratedError(
      `${operation}: a table is missing; run migrate(db) with the same table names first (${reason})`,
      { cause: error, details },
    )
  }
  return new StoreQueryError(`${operation} failed: ${reason}`, { cause: error, details })
}

type ErrorEmitter = {
  on?: (event: 'error', listener: (error: Error) => void) => unknown
  removeListener?: (event: 'error', listener: (error: Error) => void) => unknown
}

async function inPoolTransaction<T>(pool: PoolLike, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  // A checked-out pg client has no 'error' listener: a dropped connection would be an
  // uncaught 'error' event. Catch it here; the failed query rejects on its own.
  const onError = (error: Error) => {
    broken = error
  }
  const emitter = client as ErrorEmitter
  emitter.on?.('error', onError)
  try {
    await client.query('BEGIN')
    try {
      const result = await fn(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      try {
        await client.query('ROLLBACK')
      } catch (rollbackError) {
        broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))
      }
      throw error
    }
  } finally {
    emitter.removeListener?.('error', onError)
    client.release(broken ?? false)
  }
}

async function inSingleTransaction<T>(
  conn: Queryable,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  await conn.query('BEGIN')
  try {
    const result = await fn(conn)
    await conn.query('COMMIT')
    return result
  } catch (error) {
    await conn.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

/**
 * Run `fn` inside one transaction on one connection of `db` (see {@link PostgresDb} for how
 * each kind of `db` does it). Everything `fn` wrote is committed together or not at all. A
 * serialization failure or deadlock (only possible under stricter isolation levels) retries the
 * whole transaction up to `attempts` times. Driver errors come out as {@link StoreQueryError}.
 */
export async function withTransaction<T>(
  db: PostgresDb,
  operation: string,
  fn: (tx: Queryable) => Promise<T>,
  attempts = 3,
): Promise<T> {
  assertObject(db, 'withTransaction', 'db')
  assertString(operation, 'withTransaction', 'operation')
  if (typeof fn !== 'function') invalidArgument('withTransaction', 'fn', 'a function', fn)
  const kind = kindOf(db)
  const once = (): Promise<T> => {
    if (kind === 'transactional') return (db as TransactionalDb).transaction(fn)
    if (kind === 'pool') return inPoolTransaction(db as PoolLike, fn)
    return serialized(db, () => inSingleTransaction(db, fn))
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await once()
    } catch (error) {
      const state = sqlStateOf(error)
      if (attempt < attempts && state !== undefined && RETRYABLE.has(state)) continue
      throw storeError(error, operation)
    }
  }
}

/**
 * Run one statement outside an explicit transaction (on a single connection, after whatever
 * the store is running on it). Driver errors come out as {@link StoreQueryError}.
 */
export async function runQuery(
  db: PostgresDb,
  operation: string,
  text: string,
  params: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  try {
    const result =
      kindOf(db) === 'single'
        ? await serialized(db, () => db.query(text, params))
        : await db.query(text, params)
    return rowsOf(result, operation)
  } catch (error) {
    throw storeError(error, operation)
  }
}

/** The rows of a query result, checked to be objects. */
export function rowsOf(result: unknown, operation: string): Record<string, unknown>[] {
  const rows = typeof result === 'object' && result !== null ? Reflect.get(result, 'rows') : null
  if (!Array.isArray(rows) || rows.some((r) => typeof r !== 'object' || r === null)) {
    throw new StoreDataError(`${operation}: the driver returned no rows array`, {
      details: { operation },
    })
  }
  return rows as Record<string, unknown>[]
}

/** Run a statement inside a transaction callback and return its checked rows. */
export async function txQuery(
  tx: Queryable,
  operation: string,
  text: string,
  params: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  return rowsOf(await tx.query(text, params), operation)
}

/** A non-negative integer from a column that a driver may give as number, string or bigint. */
export function integerOf(value: unknown, column: string, operation: string): number {
  const n = typeof value === 'bigint' || typeof value === 'string' ? Number(value) : value
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) return n
  throw new StoreDataError(`${operation}: column ${column} is not a non-negative integer`, {
    details: { operation, column },
  })
}
