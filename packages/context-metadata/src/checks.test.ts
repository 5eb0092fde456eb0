import { parseWith, ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { ContextMetadataSchema } from './metadata-schema.js'
import {
  AnalyzeFileOptionsSchema,
  AnalyzeOptionsSchema,
  ContextMetadataOptionsSchema,
  HintOptionsSchema,
} from './options.js'

// The zod schemas the hand-written checks replaced (so `analyzeContext` bundles without zod).
// Each check must give the same answer as its schema on every value, and the same data.
const positiveInt = z.number().int().positive()
const byteSize = z.number().int().min(16)
const analyzeShape = {
  sniffChars: positiveInt.optional(),
  maxSampleRecords: positiveInt.optional(),
  maxFields: positiveInt.optional(),
  sampleChars: positiveInt.optional(),
}
const zAnalyze = z.strictObject(analyzeShape)
const zAnalyzeFile = z
  .strictObject({
    fileName: z.string().optional(),
    sniffBytes: byteSize.optional(),
    chunkBytes: byteSize.optional(),
    signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal).optional(),
  })
  .extend(analyzeShape)
const hintShape = {
  contextRef: z.string().nullable().optional(),
  maxFields: positiveInt.optional(),
  maxFieldChars: positiveInt.optional(),
  sampleChars: positiveInt.optional(),
  maxNameChars: positiveInt.optional(),
}
const zHint = z.strictObject({
  ...hintShape,
  style: z.enum(['auto', 'block', 'inline', 'brief']).optional(),
})
const zMiddleware = z.strictObject({
  file: z.string().min(1).optional(),
  content: z.string().optional(),
  fileName: z.string().optional(),
  contextVar: z.string().min(1).optional(),
  metaVar: z.string().min(1).optional(),
  sectionId: z.string().min(1).optional(),
  priority: z.number().optional(),
  cache: z.enum(['stable', 'volatile']).optional(),
  hint: z.strictObject(hintShape).optional(),
  analyze: z
    .strictObject({
      ...analyzeShape,
      sniffBytes: byteSize.optional(),
      chunkBytes: byteSize.optional(),
    })
    .optional(),
})
const strings = z.array(z.string())
const count = z.number()
const zMetadata = z.object({
  fileName: z.string().optional(),
  format: z.string(),
  chars: count,
  bytes: count.optional(),
  lines: count,
  fields: strings.optional(),
  fieldsTruncated: z.boolean().optional(),
  recordCount: count.optional(),
  sampleRecord: z.string().optional(),
  delimiter: z.string().optional(),
  hasHeader: z.boolean().optional(),
  recordArrays: z
    .array(
      z.object({
        key: z.string(),
        count,
        fields: strings.optional(),
        declaredTotal: count.optional(),
      }),
    )
    .optional(),
  valueArrays: z.array(z.object({ key: z.string(), count, elements: z.string() })).optional(),
  maps: z
    .array(
      z.object({
        key: z.string().optional(),
        entries: count,
        keyExamples: strings,
        values: z.string(),
        valueFields: strings.optional(),
      }),
    )
    .optional(),
  malformedLines: count.optional(),
  raggedRows: count.optional(),
  rootElement: z.string().optional(),
  warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
})

/** Values near every edge the schemas have: integer limits, empty strings, enum members, … */
const scalar = fc.oneof(
  fc.constantFrom(
    0,
    1,
    15,
    16,
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    '',
    'a',
    'auto',
    'brief',
    'stable',
    'volatile',
    null,
    undefined,
    true,
    false,
  ),
  fc.integer({ min: -5, max: 100_000 }),
  fc.double(),
  fc.string({ maxLength: 4 }),
  fc.constant(new AbortController().signal),
)

/** Objects with keys of `names` (each present or not) and sometimes an unknown key. */
function objectOf(names: readonly string[], value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const keys = fc.constantFrom(...names, 'unknownKey')
  return fc.dictionary(keys, value, { maxKeys: names.length + 1 })
}

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    scalar,
    fc.array(tie('any'), { maxLength: 3 }),
    fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
    objectOf(
      ['key', 'count', 'fields', 'elements', 'entries', 'keyExamples', 'values'],
      tie('any'),
    ),
    objectOf(['code', 'message'], fc.oneof(fc.string(), scalar)),
  ),
})).any

/** Metadata that is valid more often than not, with a bad value here and there. */
const mostly = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: scalar })
const goodCount = mostly(fc.integer({ min: 0, max: 1000 }))
const goodStrings = mostly(fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }))
const metadataLike = fc.record(
  {
    format: mostly(fc.constantFrom('csv', 'json', 'text')),
    chars: goodCount,
    lines: goodCount,
    fileName: mostly(fc.string({ maxLength: 4 })),
    fields: goodStrings,
    hasHeader: mostly(fc.boolean()),
    recordArrays: mostly(
      fc.array(
        fc.record(
          { key: mostly(fc.string()), count: goodCount, fields: goodStrings },
          { requiredKeys: ['key', 'count'] },
        ),
        { maxLength: 2 },
      ),
    ),
    maps: mostly(
      fc.array(
        fc.record(
          { entries: goodCount, keyExamples: goodStrings, values: mostly(fc.string()) },
          { requiredKeys: ['entries', 'keyExamples'] },
        ),
        { maxLength: 2 },
      ),
    ),
    warnings: mostly(
      fc.array(fc.record({ code: mostly(fc.string()), message: fc.string() }), { maxLength: 2 }),
    ),
    newerField: fc.anything({ maxDepth: 1 }),
  },
  { requiredKeys: ['format', 'chars'] },
)

const cases = [
  ['AnalyzeOptions', AnalyzeOptionsSchema, zAnalyze, true],
  ['AnalyzeFileOptions', AnalyzeFileOptionsSchema, zAnalyzeFile, true],
  ['HintOptions', HintOptionsSchema, zHint, true],
  ['ContextMetadataOptions', ContextMetadataOptionsSchema, zMiddleware, true],
  ['ContextMetadata', ContextMetadataSchema, zMetadata, false],
] as const

describe.each(cases)('%s check', (_, check, schema, strict) => {
  const names = Object.keys(schema.shape)
  const input = fc.oneof(
    strict ? objectOf(names, value) : metadataLike,
    objectOf(names, fc.oneof(scalar, fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }))),
    value,
  )

  test('accepts exactly what the zod schema accepts, with the same data', () => {
    const seen = { accepted: 0, refused: 0 }
    fc.assert(
      fc.property(input, (v) => {
        const mine = check.safeParse(v)
        const theirs = schema.safeParse(v)
        expect(mine.success).toBe(theirs.success)
        seen[mine.success ? 'accepted' : 'refused']++
        // A strict schema's data is the input's keys; a loose one keeps unknown keys in ours.
        if (mine.success && theirs.success && strict) expect(mine.data).toEqual(theirs.data)
        if (!mine.success && !theirs.success) {
          expect(mine.error.issues[0]?.path).toEqual(theirs.error.issues[0]?.path)
        }
      }),
      { numRuns: 2000 },
    )
    // Both answers were exercised, not only refusals.
    expect(seen.accepted).toBeGreaterThan(20)
    expect(seen.refused).toBeGreaterThan(20)
  })
})

test('a bad option is a ValidationError naming the argument and the path', () => {
  let caught: unknown
  try {
    parseWith(AnalyzeOptionsSchema, { sniffChars: 0, extra: 1 }, 'analyzeContext options')
  } catch (error) {
    caught = error
  }
  expect(ValidationError.isInstance(caught)).toBe(true)
  const error = caught as ValidationError
  expect(error.message).toMatch(/^Invalid analyzeContext options: sniffChars: /)
  expect(error.issues.map((i) => i.path)).toEqual(['sniffChars', '(root)'])
})
