import { parseWith, SessionIdSchema, ValidationError } from '@contextkit/core'
import * as z from 'zod'

/** Longest table name accepted, so derived names (`<table>_heads`) stay under Postgres' 63. */
export const MAX_TABLE_NAME_LENGTH = 48

const PART = /^[a-z_][a-z0-9_]*$/

/**
 * A table name: lower-case letters, digits and `_`, starting with a letter or `_`, at most 48
 * characters, optionally schema-qualified (`schema.table`). Nothing that needs escaping, so a
 * table name can never smuggle SQL in; it is still always double-quoted in statements.
 */
export const TableNameSchema = z.string().refine((name) => {
  const parts = name.split('.')
  if (parts.length > 2) return false
  return parts.every((p) => p.length > 0 && p.length <= MAX_TABLE_NAME_LENGTH && PART.test(p))
}, 'table names are [a-z_][a-z0-9_]* (at most 48 characters), optionally schema.table')

/** A table name checked and quoted for SQL, with the names derived from it. */
export interface TableName {
  /** As given, e.g. `contextkit_sessions` or `app.contextkit_sessions`. */
  readonly name: string
  /** Quoted for SQL, e.g. `"app"."contextkit_sessions"`. */
  readonly sql: string
  /** The bare table part, for naming indexes and constraints. */
  readonly base: string
  /** A sibling table in the same schema, quoted: `sibling('_heads')`. */
  sibling(suffix: string): string
}

function quote(part: string): string {
  return `"${part}"`
}

/** Check a table name ({@link TableNameSchema}) and quote it; a `ValidationError` otherwise. */
export function tableName(name: unknown, what: string): TableName {
  const checked = parseWith(TableNameSchema, name, what)
  const parts = checked.split('.')
  const base = parts[parts.length - 1]!
  const schema = parts.length === 2 ? parts[0]! : undefined
  const qualify = (table: string) => (schema ? `${quote(schema)}.${quote(table)}` : quote(table))
  return {
    name: checked,
    sql: qualify(base),
    base,
    sibling: (suffix) => qualify(`${base}${suffix}`),
  }
}

/**
 * Check an agent id (the key of a state row): the same rule as session ids, 1–200 characters of
 * `[A-Za-z0-9._-]` starting alphanumeric, no `..`. A `ValidationError` naming `fn` otherwise.
 */
export function assertAgentId(id: unknown, fn: string): asserts id is string {
  if (SessionIdSchema.safeParse(id).success) return
  const message = 'agent ids are 1-200 characters of [A-Za-z0-9._-], starting alphanumeric, no ".."'
  const shown = typeof id === 'string' ? JSON.stringify(id) : typeof id
  throw new ValidationError(`${fn}: unsafe agent id ${shown}: ${message}`, [
    { path: 'agentId', message },
  ])
}
