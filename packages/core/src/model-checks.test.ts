import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isModelInfo, ModelEntryCheck, ModelInfoCheck, THINKING_MODES } from './model-checks.js'
import { ModelEntrySchema, ModelInfoSchema } from './model-info.js'
import { BUILTIN_MODELS } from './model-table.js'

// Values near a model entry: every field sometimes right, sometimes of another type or out of
// range, sometimes missing, sometimes with an extra key.
const number = fc.oneof(
  fc.integer({ min: -5, max: 300_000 }),
  fc.double({ noNaN: false }),
  fc.constantFrom(0, 1, 0.5, Number.MAX_SAFE_INTEGER + 2, Number.POSITIVE_INFINITY),
)
const junk = fc.oneof(fc.string(), fc.boolean(), fc.constant(null), number)
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: arb }, junk)
const pricing = fc.record(
  {
    input: maybe(number),
    output: maybe(number),
    cacheWrite: maybe(number),
    cacheRead: maybe(number),
    source: maybe(fc.constantFrom('', 'https://example.com/prices')),
    asOf: maybe(fc.constantFrom('2026-01-02', '2026-1-2', '')),
    extra: fc.string(),
  },
  { requiredKeys: [] },
)
const entry = fc.record(
  {
    id: maybe(fc.string()),
    family: maybe(fc.string()),
    contextWindow: maybe(number),
    maxOutput: maybe(number),
    supportsPrefill: maybe(fc.boolean()),
    supportsThinking: maybe(fc.boolean()),
    thinkingMode: maybe(fc.constantFrom(...THINKING_MODES, 'sometimes')),
    tokenizerFactor: maybe(number),
    pricing: maybe(pricing),
    known: maybe(fc.boolean()),
    warning: maybe(fc.string()),
  },
  { requiredKeys: [] },
)
const builtin = fc.constantFrom(...Object.values(BUILTIN_MODELS))
const values = fc.oneof(
  entry,
  builtin,
  builtin.map((e) => ({ ...e, id: 'x', known: true })),
  builtin.chain((e) => entry.map((patch) => ({ ...e, id: 'x', known: false, ...patch }))),
  fc.anything(),
)

type Parser = {
  safeParse(v: unknown):
    | { success: true; data: unknown }
    | {
        success: false
        error: {
          issues: { path: PropertyKey[]; message: string; code?: string; keys?: string[] }[]
        }
      }
}

/**
 * The check accepts what the schema accepts, passes the value as given (the schema's copy only
 * drops unknown keys) and reports its first issue at the schema's first path; with the same
 * message where the schema's is ours (the consistency rules), not zod's wording of a type.
 */
function same(check: Parser, schema: Parser, value: unknown): void {
  const a = check.safeParse(value)
  const b = schema.safeParse(value)
  expect(a.success).toBe(b.success)
  if (a.success) expect(a.data).toBe(value)
  if (!a.success && !b.success) {
    const first = b.error.issues[0]
    // zod reports an unknown key at its object, naming it in `keys`; the check, at the key itself
    const path =
      first?.code === 'unrecognized_keys'
        ? [...first.path, ...(first.keys ?? []).slice(0, 1)]
        : first?.path
    expect(a.error.issues[0]?.path).toEqual(path)
    if (b.error.issues[0]?.message.startsWith('must be'))
      expect(a.error.issues[0]?.message).toBe(b.error.issues[0]?.message)
  }
}

describe('the zod-free model checks', () => {
  it('accept and first-report exactly what the zod schemas do (property)', () => {
    fc.assert(
      fc.property(values, (value) => {
        same(ModelInfoCheck as unknown as Parser, ModelInfoSchema as unknown as Parser, value)
        same(ModelEntryCheck as unknown as Parser, ModelEntrySchema as unknown as Parser, value)
        expect(isModelInfo(value)).toBe(ModelInfoSchema.safeParse(value).success)
      }),
      { numRuns: 1000 },
    )
  })

  it('accept every built-in entry and refuse an inconsistent one', () => {
    for (const e of Object.values(BUILTIN_MODELS)) {
      expect(isModelInfo({ ...e, id: 'x', known: true })).toBe(true)
    }
    const first = Object.values(BUILTIN_MODELS)[0]!
    expect(isModelInfo({ ...first, id: 'x', known: true, supportsThinking: false })).toBe(
      first.thinkingMode === 'none',
    )
    expect(isModelInfo({ ...first, id: 'x' })).toBe(false)
  })
})
