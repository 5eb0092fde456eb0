import {
  assertSessionId,
  invalidArgument,
  parseWith,
  type SessionEntry,
  type SessionEntryStream,
  type SessionLoadResult,
  type SessionStore,
  ValidationError,
} from '@contextkit/core'
import { SessionEntrySchema } from '@contextkit/core/schemas'
import {
  collectSession,
  DEFAULT_SESSION_LEASE_TTL_MS,
  sessionEntryText,
} from '@contextkit/core/store'
import * as z from 'zod'
import {
  integerOf,
  isPostgresDb,
  type PostgresDb,
  runQuery,
  txQuery,
  withTransaction,
} from './db.js'
import { tableName } from './identifiers.js'
import { DEFAULT_SESSION_TABLE } from './migrate.js'
import { HEADS_SUFFIX } from './schema.js'
import {
  acquirePostgresLease,
  type HolderAlive,
  LEASES_SUFFIX,
  type LeaseContext,
  type LeaseHolderIdentity,
  LeaseHolderIdentitySchema,
} from './session-lease.js'
import { pageSql, readTail, streamRows } from './session-read.js'
import { TableNameSchema } from './table-name-schema.js'

export { INVALID_ENTRY_WARNING } from './session-read.js'

/** Options of {@link postgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /**
   * Table holding one row per entry; each session's counter row lives in `<table>_heads`. Pass
   * the same name to `migrate({ sessionTable })`. Lower-case `[a-z_][a-z0-9_]*`, optionally
   * `schema.table`. Default `contextkit_sessions`.
   */
  table?: string
  /**
   * How long a session's lease (`acquireLease`, taken by `runAgent` for the whole run) lives
   * without a heartbeat when the request names no `ttlMs`, by the server's clock: 1 to
   * 2^31 − 1 ms. Default `30000` ms.
   */
  leaseTtlMs?: number
  /**
   * Who this process's leases name as their holder (shown to a run that waits). Default
   * `{ host: 'unknown', pid: process.pid }`; in Node pass core/node's `await processIdentity()`.
   */
  leaseHolder?: LeaseHolderIdentity
  /**
   * Tells whether a holder's process still runs (core/node's `ownerAlive`): a holder found gone
   * (same host, pid and start time) loses its lease at once instead of when it expires. Default:
   * none (a lease ends when released or expired).
   */
  holderAlive?: HolderAlive
}

const OptionsSchema = z.strictObject({
  table: TableNameSchema.optional(),
  leaseTtlMs: z.number().int().min(1).max(2_147_483_647).optional(),
  leaseHolder: LeaseHolderIdentitySchema.optional(),
  holderAlive: z.custom<HolderAlive>((v) => typeof v === 'function', 'a function').optional(),
})

/** The lease context of a store from its checked options. */
function leaseContext(
  db: PostgresDb,
  leases: string,
  o: z.infer<typeof OptionsSchema>,
): LeaseContext {
  const pid = (globalThis as { process?: { pid?: number } }).process?.pid ?? 0
  return {
    db,
    leases,
    ttlMs: o.leaseTtlMs ?? DEFAULT_SESSION_LEASE_TTL_MS,
    identity: {
      host: o.leaseHolder?.host ?? 'unknown',
      pid: o.leaseHolder?.pid ?? pid,
      start: o.leaseHolder?.start ?? null,
    },
    holderAlive: o.holderAlive,
  }
}
const EntriesSchema = z.array(SessionEntrySchema)

/** Characters of entry JSON per insert statement: a batch larger than this takes several. */
const INSERT_CHUNK_CHARS = 32 * 1024 * 1024

/** The write statements of a session store on `table` (its heads table `heads`). */
function sessionSql(table: string, heads: string) {
  const reserve = `INSERT INTO ${heads} AS h (session_id, last_seq) VALUES ($1, $2::bigint)
    ON CONFLICT (session_id) DO UPDATE SET last_seq = h.last_seq + EXCLUDED.last_seq, updated_at = now()
    RETURNING h.last_seq::text AS last_seq`
  const insert = `INSERT INTO ${table} (session_id, seq, entry)
    SELECT $1, $2::bigint + e.ord - 1, e.value
    FROM json_array_elements($3::json) WITH ORDINALITY AS e(value, ord)`
  return { reserve, insert, ...pageSql(table) }
}

type SessionSql = ReturnType<typeof sessionSql>

/**
 * The batch's entry texts as JSON arrays of at most about {@link INSERT_CHUNK_CHARS} characters
 * each (one insert statement per array), with the offset of each array's first entry.
 */
function insertChunks(texts: readonly string[]): Array<{ offset: number; payload: string }> {
  const chunks: Array<{ offset: number; payload: string }> = []
  let start = 0
  let chars = 0
  texts.forEach((text, i) => {
    if (i > start && chars + text.length > INSERT_CHUNK_CHARS) {
      chunks.push({ offset: start, payload: `[${texts.slice(start, i).join(',')}]` })
      start = i
      chars = 0
    }
    chars += text.length + 1
  })
  chunks.push({ offset: start, payload: `[${texts.slice(start).join(',')}]` })
  return chunks
}

/** `append`: the batch checked whole, then written in one transaction under the head row's lock. */
async function appendBatch(
  db: PostgresDb,
  sql: SessionSql,
  id: string,
  batch: readonly SessionEntry[],
): Promise<void> {
  const op = 'postgresSessionStore.append'
  assertSessionId(id, op)
  if (!Array.isArray(batch)) invalidArgument(op, 'entries', 'an array of session entries', batch)
  const parsed = parseWith(EntriesSchema, batch, 'session entries')
  parsed.forEach((entry, i) => {
    if (entry.type === 'session' && entry.id !== id) {
      throw new ValidationError(
        `${op}: entry ${i} is a header naming session "${entry.id}", not "${id}"`,
        [{ path: `${i}.id`, message: `expected "${id}"` }],
      )
    }
  })
  const texts = batch.map((entry, i) => sessionEntryText(entry, i, op))
  if (texts.length === 0) return
  await withTransaction(db, op, async (tx) => {
    const rows = await txQuery(tx, op, sql.reserve, [id, String(texts.length)])
    const first = integerOf(rows[0]?.last_seq, 'last_seq', op) - texts.length + 1
    for (const { offset, payload } of insertChunks(texts)) {
      await txQuery(tx, op, sql.insert, [id, String(first + offset), payload])
    }
  })
}

/**
 * A {@link @contextkit/core#SessionStore} in Postgres, shared by every worker that reaches the database.
 *
 * - `append` validates the whole batch first (`ValidationError`, nothing written; a header
 *   entry must name this session), then writes
 *   it in one transaction: it locks the session's row in `<table>_heads`, takes the next
 *   `seq` range from it and inserts one row per entry. Concurrent appends to one session
 *   (from any number of processes) queue on that row lock: `seq` runs 1, 2, 3… without gap
 *   or duplicate and a batch is never interleaved. A failure (a dropped connection included)
 *   rolls the whole batch back. An empty batch writes nothing.
 * - `append` refuses an entry whose JSON is larger than core's `SESSION_ENTRY_MAX_BYTES`
 *   (256 MiB) with a `SessionTooLargeError`, nothing written; a large batch is inserted in
 *   several statements of the same transaction (no batch limit).
 * - `stream` reads the entries ordered by `seq`, a page at a time by the primary key (256 rows
 *   or 16 MiB of entry text, whichever comes first), each page given out before the next is
 *   read: memory bounded by one page whatever the session's length. `load` is `stream`
 *   collected. A row that is not a valid entry (edited by hand) is skipped with a
 *   `store_postgres_invalid_entry` warning whose `line` is its `seq`.
 * - `loadTail` (what `runAgent` uses) reads pages of rows backwards by the primary key, newest
 *   first (64 rows, doubling up to 4,096, each at most 16 MiB), only until they hold what a resume needs (core's
 *   `resumeTailBoundary`: the newest usable compaction entry's first kept message and the last
 *   reply), then the first row (the header); only those rows are validated. Its entries are the
 *   header and a suffix of `load`'s, with `load`'s warnings for those rows.
 * - `list` returns the ids of every session with entries, sorted by code unit; `delete`
 *   removes a session and its entries in one statement.
 * - `acquireLease` (core's session lease: one run per session at a time) keeps one row per
 *   leased session in `<table>_leases`; every change is one statement, the expiry is on the
 *   server's clock (see `leaseTtlMs`, `holderAlive`).
 *
 * Entries are stored as `json`, byte for byte as `JSON.stringify` wrote them. Run
 * {@link migrate} first. `db` is a `pg` `Pool` or `Client`, PGlite, or anything with
 * `query(text, params)` (see {@link PostgresDb} for how each runs a transaction). Every value
 * is a bound parameter; the table name is checked and quoted.
 *
 * @throws ValidationError for a bad `db`, table name, session id or entry.
 * @throws StoreQueryError (or its subclass `StoreNotMigratedError`) when the database fails.
 */
export function postgresSessionStore(
  db: PostgresDb,
  options: PostgresSessionStoreOptions = {},
): SessionStore & Required<Pick<SessionStore, 'loadTail' | 'stream' | 'acquireLease'>> {
  if (!isPostgresDb(db)) {
    invalidArgument('postgresSessionStore', 'db', 'an object with a query method', db)
  }
  const opts = parseWith(OptionsSchema, options ?? {}, 'postgresSessionStore options')
  const table = tableName(opts.table ?? DEFAULT_SESSION_TABLE, 'table')
  const heads = table.sibling(HEADS_SUFFIX)

  const sql = sessionSql(table.sql, heads)
  const lease = leaseContext(db, table.sibling(LEASES_SUFFIX), opts)

  return {
    async load(id: string): Promise<SessionLoadResult> {
      assertSessionId(id, 'postgresSessionStore.load')
      return collectSession(streamRows(db, sql, id))
    },

    stream(id: string): SessionEntryStream {
      return streamRows(db, sql, id)
    },

    loadTail(id: string): Promise<SessionLoadResult> {
      return readTail(db, sql, id)
    },

    append(id: string, batch: readonly SessionEntry[]): Promise<void> {
      return appendBatch(db, sql, id, batch)
    },

    async list(): Promise<string[]> {
      const op = 'postgresSessionStore.list'
      const rows = await runQuery(
        db,
        op,
        `SELECT session_id FROM ${heads} ORDER BY session_id COLLATE "C"`,
      )
      return rows.map((row) => String(row.session_id))
    },

    acquireLease: (id, request) => acquirePostgresLease(lease, id, request),

    async delete(id: string): Promise<boolean> {
      const op = 'postgresSessionStore.delete'
      assertSessionId(id, op)
      const rows = await runQuery(
        db,
        op,
        `DELETE FROM ${heads} WHERE session_id = $1 RETURNING session_id`,
        [id],
      )
      return rows.length > 0
    },
  }
}
