import {
  assertSessionId,
  invalidArgument,
  parseWith,
  type SessionEntry,
  type SessionLoadResult,
  type SessionStore,
  type SessionWarning,
  ValidationError,
} from '@contextkit/core'
import { resumeTailBoundary, SessionEntrySchema } from '@contextkit/core/store'
import * as z from 'zod'
import {
  integerOf,
  isPostgresDb,
  type PostgresDb,
  runQuery,
  txQuery,
  withTransaction,
} from './db.js'
import { StoreDataError } from './errors.js'
import { tableName } from './identifiers.js'
import { DEFAULT_SESSION_TABLE } from './migrate.js'
import { HEADS_SUFFIX } from './schema.js'
import { TableNameSchema } from './table-name-schema.js'

/** Options of {@link postgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /**
   * Table holding one row per entry; each session's counter row lives in `<table>_heads`. Pass
   * the same name to `migrate({ sessionTable })`. Lower-case `[a-z_][a-z0-9_]*`, optionally
   * `schema.table`. Default `contextkit_sessions`.
   */
  table?: string
}

/** Code of the warning `load` records for a row that is not a valid session entry. */
export const INVALID_ENTRY_WARNING = 'store_postgres_invalid_entry'

const OptionsSchema = z.strictObject({ table: TableNameSchema.optional() })
const EntriesSchema = z.array(SessionEntrySchema)

/** Entries per row when loading (see the `select` statement). */
const LOAD_PAGE_ENTRIES = 256
/** Rows `loadTail` asks for first; each further page is twice as many, up to 4,096. */
const TAIL_FIRST_PAGE = 64

function parseJson(text: unknown): unknown {
  try {
    return JSON.parse(String(text))
  } catch {
    return undefined
  }
}

/** One row read back: its `seq`, and its entry, or the warning that skipped it. */
interface RowRead {
  seq: number
  entry?: SessionEntry
  warning?: SessionWarning
}

/** The rows of one page (`seqs` and `entries` JSON arrays, as the selects return them), unchecked. */
function pageRows(row: Record<string, unknown>, id: string, op: string): RawRow[] {
  if (row.seqs === null && row.entries === null) return [] // an empty page: no row matched
  const seqs = parseJson(row.seqs)
  if (!Array.isArray(seqs)) {
    throw new StoreDataError(`${op}: the database returned no seq list`, { details: { id } })
  }
  const values = parseJson(row.entries)
  return seqs.map((seqValue: unknown, i) => ({
    seq: integerOf(seqValue, 'seq', op),
    value: Array.isArray(values) ? values[i] : undefined,
  }))
}

/** A row as the database returned it: its `seq` and its parsed JSON. */
interface RawRow {
  seq: number
  value: unknown
}

/** Validate one row: its entry, or the warning that skips it. */
function checkRow({ seq, value }: RawRow, id: string): RowRead {
  const parsed = SessionEntrySchema.safeParse(value)
  if (parsed.success) return { seq, entry: parsed.data }
  const issue = parsed.error.issues[0]
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''
  return {
    seq,
    warning: {
      code: INVALID_ENTRY_WARNING,
      message: `session ${id}: row seq ${seq} is not a valid entry${where}: ${issue?.message ?? 'unreadable'}; skipped`,
      line: seq,
    },
  }
}

function keep(read: RowRead, out: SessionLoadResult): void {
  if (read.entry !== undefined) out.entries.push(read.entry)
  else if (read.warning !== undefined) out.warnings.push(read.warning)
}

/** JSON text of each entry; a `ValidationError` for a value JSON cannot hold (BigInt, cycles). */
function entryTexts(entries: readonly SessionEntry[], fn: string): string[] {
  return entries.map((entry, i) => {
    try {
      return JSON.stringify(entry)
    } catch (error) {
      const message = `not serializable as JSON: ${error instanceof Error ? error.message : error}`
      throw new ValidationError(`${fn}: entry ${i} is ${message}`, [{ path: String(i), message }])
    }
  })
}

/** The statements of a session store on `table` (its heads table `heads`). */
function sessionSql(table: string, heads: string) {
  const reserve = `INSERT INTO ${heads} AS h (session_id, last_seq) VALUES ($1, $2::bigint)
    ON CONFLICT (session_id) DO UPDATE SET last_seq = h.last_seq + EXCLUDED.last_seq, updated_at = now()
    RETURNING h.last_seq::text AS last_seq`
  const insert = `INSERT INTO ${table} (session_id, seq, entry)
    SELECT $1, $2::bigint + e.ord - 1, e.value
    FROM json_array_elements($3::json) WITH ORDINALITY AS e(value, ord)`
  // Entries come back a page per row (one JSON array of up to LOAD_PAGE_ENTRIES entries, with
  // their seqs): far fewer rows to decode than one per entry, and each entry's text unchanged.
  const select = `SELECT json_agg(seq ORDER BY seq)::text AS seqs,
      '[' || string_agg(entry::text, ',' ORDER BY seq) || ']' AS entries
    FROM ${table} WHERE session_id = $1
    GROUP BY (seq - 1) / ${LOAD_PAGE_ENTRIES} ORDER BY min(seq)`

  // `loadTail`: pages backwards from `seq < $2` by the primary key, newest first, then the
  // first row when the tail does not hold it (the header)
  const selectBefore = `SELECT json_agg(seq ORDER BY seq)::text AS seqs,
      '[' || string_agg(entry::text, ',' ORDER BY seq) || ']' AS entries
    FROM (SELECT seq, entry FROM ${table} WHERE session_id = $1 AND seq < $2::bigint
      ORDER BY seq DESC LIMIT $3::int) AS page`
  const selectFirst = `SELECT json_agg(seq)::text AS seqs, '[' || string_agg(entry::text, ',') || ']' AS entries
    FROM (SELECT seq, entry FROM ${table} WHERE session_id = $1 AND seq < $2::bigint
      ORDER BY seq LIMIT 1) AS first`

  return { reserve, insert, select, selectBefore, selectFirst }
}

type SessionSql = ReturnType<typeof sessionSql>

/**
 * `loadTail`: pages of rows backwards by the primary key, newest first, until they hold what a
 * resume needs (core's `resumeTailBoundary`), then the first row (the header).
 */
async function readTail(db: PostgresDb, sql: SessionSql, id: string): Promise<SessionLoadResult> {
  const op = 'postgresSessionStore.loadTail'
  assertSessionId(id, op)
  const reached = resumeTailBoundary()
  const tail: RowRead[] = []
  let before = Number.MAX_SAFE_INTEGER
  let page = TAIL_FIRST_PAGE
  scan: for (;;) {
    const rows = await runQuery(db, op, sql.selectBefore, [id, String(before), String(page)])
    const raws = rows.flatMap((row) => pageRows(row, id, op))
    for (let i = raws.length - 1; i >= 0; i--) {
      const read = checkRow(raws[i] as RawRow, id)
      tail.push(read)
      if (read.entry !== undefined && reached(read.entry)) break scan
    }
    if (raws.length < page) break
    before = (raws[0] as RawRow).seq
    page = Math.min(page * 2, 16 * LOAD_PAGE_ENTRIES)
  }
  tail.reverse()
  const first = tail[0]
  const head =
    first === undefined ? [] : await runQuery(db, op, sql.selectFirst, [id, String(first.seq)])
  const out: SessionLoadResult = { entries: [], warnings: [] }
  for (const row of head) for (const raw of pageRows(row, id, op)) keep(checkRow(raw, id), out)
  for (const read of tail) keep(read, out)
  return out
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
  const texts = entryTexts(batch, op)
  if (texts.length === 0) return
  const payload = `[${texts.join(',')}]`
  await withTransaction(db, op, async (tx) => {
    const rows = await txQuery(tx, op, sql.reserve, [id, String(texts.length)])
    const last = integerOf(rows[0]?.last_seq, 'last_seq', op)
    await txQuery(tx, op, sql.insert, [id, String(last - texts.length + 1), payload])
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
 * - `load` reads the entries ordered by `seq`; a row that is not a valid entry (edited by
 *   hand) is skipped with a `store_postgres_invalid_entry` warning whose `line` is its `seq`.
 * - `loadTail` (what `runAgent` uses) reads pages of rows backwards by the primary key, newest
 *   first (64 rows, doubling up to 4,096), only until they hold what a resume needs (core's
 *   `resumeTailBoundary`: the newest usable compaction entry's first kept message and the last
 *   reply), then the first row (the header); only those rows are validated. Its entries are the
 *   header and a suffix of `load`'s, with `load`'s warnings for those rows.
 * - `list` returns the ids of every session with entries, sorted by code unit; `delete`
 *   removes a session and its entries in one statement.
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
): SessionStore & Required<Pick<SessionStore, 'loadTail'>> {
  if (!isPostgresDb(db)) {
    invalidArgument('postgresSessionStore', 'db', 'an object with a query method', db)
  }
  const opts = parseWith(OptionsSchema, options ?? {}, 'postgresSessionStore options')
  const table = tableName(opts.table ?? DEFAULT_SESSION_TABLE, 'table')
  const heads = table.sibling(HEADS_SUFFIX)

  const sql = sessionSql(table.sql, heads)

  return {
    async load(id: string): Promise<SessionLoadResult> {
      const op = 'postgresSessionStore.load'
      assertSessionId(id, op)
      const out: SessionLoadResult = { entries: [], warnings: [] }
      for (const row of await runQuery(db, op, sql.select, [id])) {
        for (const raw of pageRows(row, id, op)) keep(checkRow(raw, id), out)
      }
      return out
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
