import fc from 'fast-check'
import { describe, expect, expectTypeOf, test } from 'vitest'
import * as z from 'zod'
import * as c from './check.js'
import { withFastPath } from './composite-checks.js'
import { parseWith, ValidationError } from './errors.js'

/** The issues `check` reports for `value` (`[]` when it passes). */
function issues(check: c.Check<unknown>, value: unknown) {
  const r = check.safeParse(value)
  return r.success ? [] : r.error.issues
}

/** Values of every kind, near the limits the checks below draw. */
const anything = fc.oneof(
  fc.constantFrom('', 'a', 'ab', 'abc', 'x'.repeat(5), 'stop', 'nudge', 'Stop'),
  fc.constantFrom(0, -0, 1, 2, -1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY),
  fc.constantFrom(true, false, null, undefined, [], {}, () => 1, new Date(0)),
  fc.integer({ min: -3, max: 5 }),
  fc.double(),
)

describe('each check accepts what the zod schema it stands for accepts', () => {
  const pairs: Array<[string, c.Check<unknown>, z.ZodType]> = [
    ['string', c.string(), z.string()],
    ['string min 1', c.string({ min: 1 }), z.string().min(1)],
    ['string 2..4', c.string({ min: 2, max: 4 }), z.string().min(2).max(4)],
    ['number', c.number(), z.number()],
    ['integer ≥ 1', c.number({ int: true, min: 1 }), z.number().int().positive()],
    ['number > 0, ≤ 1', c.number({ above: 0, max: 1 }), z.number().gt(0).max(1)],
    ['boolean', c.boolean(), z.boolean()],
    ['literals', c.literal('stop', 'nudge'), z.enum(['stop', 'nudge'])],
    [
      'integer or Infinity',
      c.union(c.number({ int: true, min: 1 }), c.literal(Number.POSITIVE_INFINITY)),
      z.number().int().positive().or(z.literal(Number.POSITIVE_INFINITY)),
    ],
    ['optional', c.optional(c.string()), z.string().optional()],
    ['nullish', c.nullish(c.number()), z.number().nullish()],
    ['array', c.array(c.number()), z.array(z.number())],
    ['record', c.record(c.boolean()), z.record(z.string(), z.boolean())],
  ]
  test.each(pairs)('property: %s', (_, check, schema) => {
    fc.assert(
      fc.property(fc.oneof(anything, fc.array(anything, { maxLength: 3 })), (v) => {
        expect(check.safeParse(v).success).toBe(schema.safeParse(v).success)
        expect(check.is(v)).toBe(schema.safeParse(v).success)
      }),
      { numRuns: 500 },
    )
  })

  test('property: objects, loose and strict', () => {
    const shape = { a: c.number({ int: true }), b: c.optional(c.literal('x', 'y')) }
    const zodShape = { a: z.number().int(), b: z.enum(['x', 'y']).optional() }
    const value = fc.dictionary(fc.constantFrom('a', 'b', 'c'), anything, { maxKeys: 3 })
    fc.assert(
      fc.property(fc.oneof(value, anything), (v) => {
        expect(c.object(shape).is(v)).toBe(z.object(zodShape).safeParse(v).success)
        expect(c.strictObject(shape).is(v)).toBe(z.strictObject(zodShape).safeParse(v).success)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('issues', () => {
  test('name every bad path, with what was expected and what came', () => {
    const check = c.strictObject({
      name: c.string({ min: 1 }),
      limits: c.object({ max: c.number({ int: true, min: 1 }) }),
      tags: c.optional(c.array(c.string())),
    })
    expect(issues(check, { name: '', limits: { max: 0.5 }, tags: ['a', 3] })).toEqual([
      { path: ['name'], message: 'expected a non-empty string, got ""' },
      { path: ['limits', 'max'], message: 'expected an integer ≥ 1, got 0.5' },
      { path: ['tags', 1], message: 'expected a string, got 3' },
    ])
    expect(issues(check, 'x')).toEqual([{ path: [], message: 'expected an object, got "x"' }])
  })

  test('an unknown key is refused, naming the key we use instead or the near one', () => {
    const check = c.strictObject(
      { system: c.optional(c.string()), maxTokens: c.optional(c.number()) },
      { renamed: { systemPrompt: 'system' } },
    )
    expect(issues(check, { systemPrompt: 'Be brief.', max_tokens: 5, other: 1 })).toEqual([
      {
        path: ['systemPrompt'],
        message: 'unknown option `systemPrompt`: `systemPrompt` is `system` here',
      },
      { path: ['max_tokens'], message: 'unknown option `max_tokens`: did you mean `maxTokens`?' },
      { path: ['other'], message: 'unknown option `other`' },
    ])
    // an object (not strict) lets other keys through
    expect(c.object({ a: c.number() }).is({ a: 1, b: 2 })).toBe(true)
  })

  test('a union reports the branch that takes a value of this kind, or names them all', () => {
    const check = c.union(c.string({ min: 1 }), c.object({ id: c.string() }))
    expect(issues(check, { id: 3 })).toEqual([
      { path: ['id'], message: 'expected a string, got 3' },
    ])
    expect(issues(check, 7)).toEqual([
      { path: [], message: 'expected a non-empty string or an object, got 7' },
    ])
  })

  test('variants pick the check by their key; an unknown one is an issue at the key', () => {
    const check = c.variants('kind', {
      a: c.object({ kind: c.literal('a'), n: c.number() }),
      b: c.object({ kind: c.literal('b') }),
    })
    expect(check.is({ kind: 'b' })).toBe(true)
    expect(issues(check, { kind: 'a', n: 'x' })).toEqual([
      { path: ['n'], message: 'expected a finite number, got "x"' },
    ])
    expect(issues(check, { kind: 'c' })).toEqual([
      { path: ['kind'], message: 'expected "a" or "b", got "c"' },
    ])
  })

  test('refine adds what the shape cannot say, below the value', () => {
    const range = c.refine(c.object({ lo: c.number(), hi: c.number() }), (r) =>
      r.lo <= r.hi ? [] : [{ path: ['hi'], message: 'must be ≥ lo' }],
    )
    expect(range.is({ lo: 1, hi: 2 })).toBe(true)
    expect(issues(c.object({ r: range }), { r: { lo: 3, hi: 2 } })).toEqual([
      { path: ['r', 'hi'], message: 'must be ≥ lo' },
    ])
  })

  test('record keys may be checked; custom checks say what they expected', () => {
    const approvals = c.record(c.boolean(), c.string({ min: 1 }))
    expect(issues(approvals, { '': true })).toEqual([
      { path: [''], message: 'expected a non-empty string, got ""' },
    ])
    const fn = c.custom<() => void>((v) => typeof v === 'function', 'a function', ['function'])
    expect(issues(fn, {})).toEqual([{ path: [], message: 'expected a function, got an object' }])
  })

  test('parseWith turns them into a ValidationError naming what was checked', () => {
    const check = c.strictObject({ n: c.number() })
    expect(() => parseWith(check, { n: 'x' }, 'demo options')).toThrow(ValidationError)
    expect(() => parseWith(check, { n: 'x' }, 'demo options')).toThrow(
      'Invalid demo options: n: expected a finite number, got "x"',
    )
    const value = { n: 1 }
    expect(parseWith(check, value, 'demo options')).toBe(value)
  })
})

test('withFastPath answers with the fast test and words issues with the check', () => {
  const check = c.array(c.string())
  let fast = 0
  const quick = withFastPath(check, (v): v is string[] => {
    fast++
    return Array.isArray(v) && v.every((s) => typeof s === 'string')
  })
  expect(quick.safeParse(['a']).success).toBe(true)
  expect(quick.is(['a'])).toBe(true)
  expect(fast).toBe(2)
  expect(issues(quick, ['a', 1])).toEqual([{ path: [1], message: 'expected a string, got 1' }])
})

test('types: what a check accepts is its type; optional keys may be left out', () => {
  const check = c.strictObject({
    id: c.string(),
    mode: c.literal('a', 'b'),
    n: c.optional(c.number()),
    either: c.union(c.literal(false), c.object({ on: c.boolean() })),
  })
  expectTypeOf<c.Infer<typeof check>>().toEqualTypeOf<{
    id: string
    mode: 'a' | 'b'
    either: false | { on: boolean }
    n?: number | undefined
  }>()
  expectTypeOf(check.shape.id).toEqualTypeOf<c.Check<string>>()
})

test('lazy builds its check on the first use, once, and then is that check', () => {
  let made = 0
  const check = c.lazy(() => {
    made++
    return c.strictObject({ n: c.number() })
  })
  expect(made).toBe(0)
  expect(check.is({ n: 1 })).toBe(true)
  expect(Object.keys(check.shape)).toEqual(['n'])
  expect(issues(c.optional(check), { n: 'x' })).toEqual([
    { path: ['n'], message: 'expected a finite number, got "x"' },
  ])
  expect(made).toBe(1)
})
