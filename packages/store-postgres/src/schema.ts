import type { TableName } from './identifiers.js'

/** One schema step: a version and the statements that reach it. */
export interface Migration {
  version: number
  description: string
  statements: string[]
}

/** Suffix of the table holding one row per session (its last `seq`). */
export const HEADS_SUFFIX = '_heads'

/**
 * Schema versions of the session tables.
 *
 * - `<table>_heads`: one row per session, `last_seq` the highest `seq` written. An append
 *   locks this row (`INSERT … ON CONFLICT DO UPDATE`), so concurrent appends to one session
 *   queue on it and each takes the next range of `seq`: no gap, no duplicate, and a rolled-back
 *   append gives its range back. Its primary key serves `list`.
 * - `<table>`: one row per entry; primary key `(session_id, seq)` serves `load`. `entry` is
 *   `json`, not `jsonb`: `json` keeps the entry's text as written (object key order, so a
 *   replayed tool call is byte-identical and the prompt cache still hits) and accepts every
 *   string JavaScript can hold, where `jsonb` refuses `\u0000` and lone surrogates.
 */
export function sessionMigrations(table: TableName): Migration[] {
  const heads = table.sibling(HEADS_SUFFIX)
  return [
    {
      version: 1,
      description: 'session heads and entries',
      statements: [
        `CREATE TABLE IF NOT EXISTS ${heads} (
          session_id text COLLATE "C" PRIMARY KEY,
          last_seq bigint NOT NULL CHECK (last_seq >= 0),
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        )`,
        `CREATE TABLE IF NOT EXISTS ${table.sql} (
          session_id text COLLATE "C" NOT NULL REFERENCES ${heads} (session_id) ON DELETE CASCADE,
          seq bigint NOT NULL CHECK (seq > 0),
          entry json NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (session_id, seq)
        )`,
      ],
    },
  ]
}

/**
 * Schema versions of the state table: one row per agent, `revision` counting its saves (the
 * compare-and-set key). `state` is `json` for the same reason as session entries: it stores
 * any JavaScript string, `\u0000` included, exactly as written.
 */
export function stateMigrations(table: TableName): Migration[] {
  return [
    {
      version: 1,
      description: 'agent state with revisions',
      statements: [
        `CREATE TABLE IF NOT EXISTS ${table.sql} (
          agent_id text COLLATE "C" PRIMARY KEY,
          revision bigint NOT NULL CHECK (revision > 0),
          state json NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT now()
        )`,
      ],
    },
  ]
}

/**
 * Schema versions of the trace table (`postgresTrace`, read by `postgresTraceReader`): one row
 * per event, `id` an identity that orders every event of every session (the reader's position),
 * `stage` beside the event so a reader can skip stages without decoding them, `event` the event
 * as written (`json`, like session entries). No foreign key to the sessions: a trace may be
 * written before a session's first entry.
 */
export function traceMigrations(table: TableName): Migration[] {
  return [
    {
      version: 1,
      description: 'run trace events',
      statements: [
        `CREATE TABLE IF NOT EXISTS ${table.sql} (
          session_id text COLLATE "C" NOT NULL,
          id bigint GENERATED ALWAYS AS IDENTITY,
          stage text COLLATE "C" NOT NULL,
          event json NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (session_id, id)
        )`,
      ],
    },
  ]
}
