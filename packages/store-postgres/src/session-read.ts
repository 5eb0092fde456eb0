import {
  assertSessionId,
  type SessionEntry,
  type SessionEntryStream,
  type SessionLoadResult,
  type SessionWarning,
} from '@contextkit/core'
import { SessionEntrySchema } from '@contextkit/core/schemas'
import { resumeTailBoundary } from '@contextkit/core/store'
import { integerOf, type PostgresDb, runQuery } from './db.js'
import { StoreDataError } from './errors.js'

// How the Postgres session store reads: pages of rows by the primary key `(session_id, seq)`,
// forwards (`load`, `stream`) or backwards from the newest row (`loadTail`). A page is one row
// holding a JSON array of its entries (far fewer rows to decode than one per entry, each entry's
// text unchanged), cut at PAGE_ROWS rows or PAGE_BYTES bytes, whichever comes first, so no page
// is a string past V8's limit whatever the entries' sizes (an entry is at most core's
// SESSION_ENTRY_MAX_BYTES).

/** Code of the warning a load records for a row that is not a valid session entry. */
export const INVALID_ENTRY_WARNING = 'store_postgres_invalid_entry'

/** Rows a page holds at most. */
export const PAGE_ROWS = 256
/** Bytes of entry text after which a page ends (the row that passes it is the page's last). */
export const PAGE_BYTES = 16 * 1024 * 1024
/** Rows `loadTail` asks for first; each further page is twice as many, up to 4,096. */
const TAIL_FIRST_PAGE = 64
const TAIL_MAX_PAGE = 4096

/**
 * The select statements of a store on `table`. `$1` session id, `$2` the seq to start after
 * (forwards) or before (backwards), `$3` rows at most, `$4` bytes at most (the first row always).
 * `rows_read` counts the rows the page read, kept or not (the byte cap may leave some out).
 */
export function pageSql(table: string) {
  const page = (direction: 'ASC' | 'DESC', compare: '>' | '<') => `SELECT
      json_agg(seq ORDER BY seq) FILTER (WHERE before < $4::bigint)::text AS seqs,
      '[' || string_agg(entry::text, ',' ORDER BY seq) FILTER (WHERE before < $4::bigint) || ']'
        AS entries,
      count(*) AS rows_read
    FROM (SELECT seq, entry,
        sum(octet_length(entry::text)) OVER (ORDER BY seq ${direction}) - octet_length(entry::text)
          AS before
      FROM (SELECT seq, entry FROM ${table} WHERE session_id = $1 AND seq ${compare} $2::bigint
        ORDER BY seq ${direction} LIMIT $3::int) AS rows) AS page`
  const first = `SELECT json_agg(seq)::text AS seqs, '[' || string_agg(entry::text, ',') || ']' AS entries
    FROM (SELECT seq, entry FROM ${table} WHERE session_id = $1 AND seq < $2::bigint
      ORDER BY seq LIMIT 1) AS first`
  return { after: page('ASC', '>'), before: page('DESC', '<'), first }
}

/** The statements {@link pageSql} makes. */
export type PageSql = ReturnType<typeof pageSql>

/** A row as the database returned it: its `seq` and its parsed JSON. */
interface RawRow {
  seq: number
  value: unknown
}

/** One row read back: its `seq`, and its entry, or the warning that skipped it. */
interface RowRead {
  seq: number
  entry?: SessionEntry
  warning?: SessionWarning
}

function parseJson(text: unknown): unknown {
  try {
    return JSON.parse(String(text))
  } catch {
    return undefined
  }
}

/** One page: its rows in seq order (unchecked), and how many rows it read. */
async function readPage(
  db: PostgresDb,
  op: string,
  text: string,
  params: unknown[],
): Promise<{ rows: RawRow[]; read: number }> {
  const [row] = await runQuery(db, op, text, params)
  const read = row?.rows_read === undefined ? 0 : integerOf(row.rows_read, 'rows_read', op)
  return { rows: row === undefined ? [] : pageRows(row, String(params[0]), op), read }
}

/** The rows of one page (`seqs` and `entries` JSON arrays, as the selects return them). */
export function pageRows(row: Record<string, unknown>, id: string, op: string): RawRow[] {
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

/**
 * `stream`: pages forwards by the primary key from the first row, each checked and given out
 * before the next is asked for (memory: one page). Entries appended while it reads may be
 * included (each batch whole: a batch commits at once and takes the next seqs).
 */
export function streamRows(db: PostgresDb, sql: PageSql, id: string): SessionEntryStream {
  const op = 'postgresSessionStore.stream'
  assertSessionId(id, op)
  const warnings: SessionWarning[] = []
  return {
    warnings,
    async *[Symbol.asyncIterator]() {
      let after = 0
      for (;;) {
        const params = [id, String(after), String(PAGE_ROWS), String(PAGE_BYTES)]
        const { rows, read } = await readPage(db, op, sql.after, params)
        const out: SessionLoadResult = { entries: [], warnings }
        for (const raw of rows) keep(checkRow(raw, id), out)
        yield* out.entries
        const last = rows.at(-1)
        if (last === undefined || (read < PAGE_ROWS && rows.length === read)) return
        after = last.seq
      }
    },
  }
}

/**
 * `loadTail`: pages of rows backwards by the primary key, newest first, until they hold what a
 * resume needs (core's `resumeTailBoundary`), then the first row (the header). Only the rows of
 * the tail (and the last page's overshoot) are read.
 */
export async function readTail(
  db: PostgresDb,
  sql: PageSql,
  id: string,
): Promise<SessionLoadResult> {
  const op = 'postgresSessionStore.loadTail'
  assertSessionId(id, op)
  const reached = resumeTailBoundary()
  const tail: RowRead[] = []
  let before = Number.MAX_SAFE_INTEGER
  let size = TAIL_FIRST_PAGE
  scan: for (;;) {
    const params = [id, String(before), String(size), String(PAGE_BYTES)]
    const { rows, read } = await readPage(db, op, sql.before, params)
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = checkRow(rows[i] as RawRow, id)
      tail.push(row)
      if (row.entry !== undefined && reached(row.entry)) break scan
    }
    const oldest = rows[0]
    if (oldest === undefined || (read < size && rows.length === read)) break
    before = oldest.seq
    size = Math.min(size * 2, TAIL_MAX_PAGE)
  }
  tail.reverse()
  const first = tail[0]
  const head = first === undefined ? [] : await runQuery(db, op, sql.first, [id, String(first.seq)])
  const out: SessionLoadResult = { entries: [], warnings: [] }
  for (const row of head) for (const raw of pageRows(row, id, op)) keep(checkRow(raw, id), out)
  for (const row of tail) keep(row, out)
  return out
}
