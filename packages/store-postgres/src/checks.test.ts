// The zod/mini option checks of the stores and migrate, held to classic zod schemas of the same
// shape (and TableNameCheck to the public TableNameSchema): the same values accepted, the same
// first issue path and message.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import * as z from 'zod'
import { TableNameCheck } from './identifiers.js'
import { MigrateOptionsCheck } from './migrate.js'
import { OptionsCheck, SaveOptionsCheck } from './state-store.js'
import { TableNameSchema } from './table-name-schema.js'

const name = fc.oneof(
  fc.stringMatching(/^[a-z_][a-z0-9_]{0,50}(\.[a-z_][a-z0-9_]{0,50})?$/),
  fc.stringMatching(/^[a-zA-Z0-9_."; -]{0,12}$/),
  fc.string(),
)
const junk = fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.boolean(), fc.string())
const options = fc.oneof(
  fc.record(
    {
      table: fc.oneof(name, junk),
      sessionTable: fc.oneof(name, junk),
      stateTable: fc.oneof(name, junk),
      migrationsTable: fc.oneof(name, junk),
      expectedRevision: fc.oneof(
        fc.integer({ min: -3, max: 1e6 }),
        fc.constantFrom(0.5, Number.MAX_SAFE_INTEGER + 2, Number.NaN),
        junk,
      ),
      other: fc.string(),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
)

type Parser = {
  safeParse(
    v: unknown,
  ):
    | { success: true }
    | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } }
}

function same(check: Parser, schema: Parser, value: unknown): void {
  const a = check.safeParse(value)
  const b = schema.safeParse(value)
  expect(a.success).toBe(b.success)
  if (!a.success && !b.success) {
    expect(a.error.issues[0]?.path).toEqual(b.error.issues[0]?.path)
    expect(a.error.issues[0]?.message).toBe(b.error.issues[0]?.message)
  }
}

describe('option checks in zod/mini', () => {
  const table = TableNameSchema.optional()
  const classic = {
    options: z.object({ table }).strict(),
    save: z.object({ expectedRevision: z.number().int().nonnegative().optional() }).strict(),
    migrate: z.object({ sessionTable: table, stateTable: table, migrationsTable: table }).strict(),
  }

  test('TableNameCheck accepts exactly what TableNameSchema accepts (property)', () => {
    fc.assert(
      fc.property(fc.oneof(name, junk), (v) => same(TableNameCheck, TableNameSchema, v)),
      { numRuns: 1000 },
    )
  })

  test('the options checks agree with classic schemas of the same shape (property)', () => {
    fc.assert(
      fc.property(options, (v) => {
        same(OptionsCheck, classic.options, v)
        same(SaveOptionsCheck, classic.save, v)
        same(MigrateOptionsCheck, classic.migrate, v)
      }),
      { numRuns: 1000 },
    )
  })
})
