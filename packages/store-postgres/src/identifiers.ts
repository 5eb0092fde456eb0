import { isSessionId, parseWith, ValidationError } from '@contextkit/core'
import * as zm from 'zod/mini'

/** Longest table name accepted, so derived names (`<table>_heads`) stay under Postgres' 63. */
export const MAX_TABLE_NAME_LENGTH = 48

const PART = /^[a-z_][a-z0-9_]*$/

/** Why a table name is refused. */
export const TABLE_NAME_MESSAGE =
  'table names are [a-z_][a-z0-9_]* (at most 48 characters), optionally schema.table'

/**
 * Whether `name` is a table name: lower-case letters, digits and `_`, starting with a letter or
 * `_`, at most 48 characters, optionally schema-qualified (`schema.table`).
 */
export function isTableName(name: string): boolean {
  const parts = name.split('.')
  if (parts.length > 2) return false
  return parts.every((p) => p.length > 0 && p.length <= MAX_TABLE_NAME_LENGTH && PART.test(p))
}

// The stores check table names with this zod/mini schema, so a bundle of one store does not carry
// classic zod; the public `TableNameSchema` (table-name-schema.ts) applies the same rule.
/** `TableNameSchema` in zod/mini. */
export const TableNameCheck = zm.string().check(zm.refine(isTableName, TABLE_NAME_MESSAGE))

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

/** Check a table name ({@link isTableName}) and quote it; a `ValidationError` otherwise. */
export function tableName(name: unknown, what: string): TableName {
  const checked = parseWith(TableNameCheck, name, what)
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
  if (isSessionId(id)) return
  const message = 'agent ids are 1-200 characters of [A-Za-z0-9._-], starting alphanumeric, no ".."'
  const shown = typeof id === 'string' ? JSON.stringify(id) : typeof id
  throw new ValidationError(`${fn}: unsafe agent id ${shown}: ${message}`, [
    { path: 'agentId', message },
  ])
}
