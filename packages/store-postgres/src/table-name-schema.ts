import * as z from 'zod'
import { isTableName, TABLE_NAME_MESSAGE } from './identifiers.js'

/**
 * A table name: lower-case letters, digits and `_`, starting with a letter or `_`, at most 48
 * characters, optionally schema-qualified (`schema.table`). Nothing that needs escaping, so a
 * table name can never smuggle SQL in; it is still always double-quoted in statements.
 */
export const TableNameSchema = z.string().refine(isTableName, TABLE_NAME_MESSAGE)
