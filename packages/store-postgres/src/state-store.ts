import {
  invalidArgument,
  parseWith,
  RevisionConflictError,
  type StateSaveOptions,
  type StateStore,
  type StoredState,
  ValidationError,
} from '@contextkit/core'
import * as zm from 'zod/mini'
import { integerOf, isPostgresDb, type PostgresDb, runQuery } from './db.js'
import { StoreDataError } from './errors.js'
import { assertAgentId, TableNameCheck, tableName } from './identifiers.js'
import { DEFAULT_STATE_TABLE } from './migrate.js'

/** Options of {@link postgresStateStore}. */
export interface PostgresStateStoreOptions {
  /**
   * Table holding one row per agent. Pass the same name to `migrate({ stateTable })`.
   * Lower-case `[a-z_][a-z0-9_]*`, optionally `schema.table`. Default `contextkit_state`.
   */
  table?: string
}

// zod/mini, so a bundle of postgresStateStore does not carry classic zod (`state-store.test.ts`
// holds these to the classic schemas of the same shape).
/** The check of {@link PostgresStateStoreOptions}. */
export const OptionsCheck = zm.strictObject({ table: zm.optional(TableNameCheck) })
/** The check of `save`'s options. */
export const SaveOptionsCheck = zm.strictObject({
  expectedRevision: zm.optional(zm.int().check(zm.nonnegative())),
})

function stateText(state: unknown, fn: string): string {
  let text: string | undefined
  try {
    text = JSON.stringify(state)
  } catch (error) {
    const message = `not serializable as JSON: ${error instanceof Error ? error.message : error}`
    throw new ValidationError(`${fn}: state is ${message}`, [{ path: 'state', message }])
  }
  if (text === undefined) {
    throw new ValidationError(`${fn}: state must be a JSON value`, [
      { path: 'state', message: `expected a JSON value, got ${typeof state}` },
    ])
  }
  return text
}

/**
 * A {@link @contextkit/core#StateStore} in Postgres: one row per agent with a `revision` that every save bumps.
 *
 * `save` with `expectedRevision` is one compare-and-set statement
 * (`UPDATE … WHERE revision = $expected`, or an `INSERT … ON CONFLICT DO NOTHING` for `0`), so of two workers saving on the
 * same revision exactly one wins and the other gets a {@link @contextkit/core#RevisionConflictError} carrying the
 * revision it met: reload, merge, save again. Without `expectedRevision` the last writer wins
 * (still one atomic upsert). The state must be a JSON value; it is stored byte for byte as
 * `JSON.stringify` wrote it and read back with `JSON.parse`.
 *
 * Run {@link migrate} first. See {@link PostgresDb} for what `db` may be.
 *
 * @throws ValidationError for a bad `db`, table name, agent id, state or `expectedRevision`.
 * @throws StoreQueryError (or its subclass `StoreNotMigratedError`) when the database fails.
 */
export function postgresStateStore<T = unknown>(
  db: PostgresDb,
  options: PostgresStateStoreOptions = {},
): StateStore<T> {
  if (!isPostgresDb(db)) {
    invalidArgument('postgresStateStore', 'db', 'an object with a query method', db)
  }
  const opts = parseWith(OptionsCheck, options ?? {}, 'postgresStateStore options')
  const t = tableName(opts.table ?? DEFAULT_STATE_TABLE, 'table').sql

  const readRevision = async (agentId: string, op: string): Promise<number> => {
    const rows = await runQuery(
      db,
      op,
      `SELECT revision::text AS revision FROM ${t} WHERE agent_id = $1`,
      [agentId],
    )
    return rows.length === 0 ? 0 : integerOf(rows[0]!.revision, 'revision', op)
  }

  return {
    async load(agentId: string): Promise<StoredState<T> | null> {
      const op = 'postgresStateStore.load'
      assertAgentId(agentId, op)
      const rows = await runQuery(
        db,
        op,
        `SELECT revision::text AS revision, state::text AS state FROM ${t} WHERE agent_id = $1`,
        [agentId],
      )
      const row = rows[0]
      if (!row) return null
      const revision = integerOf(row.revision, 'revision', op)
      try {
        return { state: JSON.parse(String(row.state)) as T, revision }
      } catch (error) {
        throw new StoreDataError(`${op}: the state of ${agentId} is not JSON`, {
          cause: error,
          details: { agentId, revision },
        })
      }
    },

    async save(agentId: string, state: T, options: StateSaveOptions = {}) {
      const op = 'postgresStateStore.save'
      assertAgentId(agentId, op)
      const { expectedRevision } = parseWith(SaveOptionsCheck, options ?? {}, 'save options')
      const text = stateText(state, op)
      let rows: Record<string, unknown>[]
      if (expectedRevision === undefined) {
        rows = await runQuery(
          db,
          op,
          `INSERT INTO ${t} AS s (agent_id, revision, state) VALUES ($1, 1, $2::json)
           ON CONFLICT (agent_id) DO UPDATE
             SET revision = s.revision + 1, state = EXCLUDED.state, updated_at = now()
           RETURNING s.revision::text AS revision`,
          [agentId, text],
        )
      } else if (expectedRevision === 0) {
        rows = await runQuery(
          db,
          op,
          `INSERT INTO ${t} (agent_id, revision, state) VALUES ($1, 1, $2::json)
           ON CONFLICT (agent_id) DO NOTHING
           RETURNING revision::text AS revision`,
          [agentId, text],
        )
      } else {
        rows = await runQuery(
          db,
          op,
          `UPDATE ${t} SET revision = revision + 1, state = $2::json, updated_at = now()
           WHERE agent_id = $1 AND revision = $3::bigint
           RETURNING revision::text AS revision`,
          [agentId, text, String(expectedRevision)],
        )
      }
      const row = rows[0]
      if (row) return { revision: integerOf(row.revision, 'revision', op) }
      const actual = await readRevision(agentId, op)
      throw new RevisionConflictError(
        `${op}: ${agentId} is at revision ${actual}, expected ${expectedRevision}`,
        expectedRevision ?? 0,
        actual,
        { recoverable: true, details: { agentId } },
      )
    },
  }
}
