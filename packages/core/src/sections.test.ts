import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import * as zm from 'zod/mini'
import { ValidationError } from './errors.js'
import { SectionSchema } from './section-schema.js'
import {
  fitSections,
  renderOmissionNotice,
  renderSections,
  type Section,
  SectionListCheck,
} from './sections.js'
import { defaultTokenCounter, type TokenCounter } from './tokens.js'

function catchError(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

/** One token per character: makes expectations exact. */
const chars: TokenCounter = { id: 'chars', kind: 'exact', count: (t) => t.length }

const sec = (id: string, text: string, priority: number, shorter?: string[]): Section => ({
  id,
  text,
  priority,
  cache: 'stable',
  ...(shorter ? { shorter } : {}),
})

describe('fitSections', () => {
  test('keeps everything when it fits', () => {
    const sections = [sec('a', 'aaaa', 1), sec('b', 'bb', 2)]
    const r = fitSections(sections, 6, chars)
    expect(r).toEqual({ kept: sections, omissions: [], tokens: 6, fits: true })
    expect(r.kept[0]).toBe(sections[0])
  })

  test('shortens the lowest priority first, stepping through its forms', () => {
    const sections = [
      sec('hi', 'H'.repeat(10), 9, ['H'.repeat(5)]),
      sec('lo', 'L'.repeat(10), 1, ['L'.repeat(6), 'L'.repeat(2)]),
    ]
    const r = fitSections(sections, 13, chars)
    expect(r.kept.map((s) => s.text)).toEqual(['H'.repeat(10), 'L'.repeat(2)])
    expect(r.omissions).toEqual([{ id: 'lo', reason: 'shortened', tokensSaved: 8 }])
    expect(r.tokens).toBe(12)
  })

  test('drops whole sections lowest priority first once shortening is exhausted', () => {
    const sections = [
      sec('a', 'A'.repeat(10), 5),
      sec('b', 'B'.repeat(10), 1, ['B'.repeat(8)]),
      sec('c', 'C'.repeat(10), 3),
    ]
    const r = fitSections(sections, 20, chars)
    expect(r.kept.map((s) => s.id)).toEqual(['a', 'c'])
    expect(r.omissions).toEqual([{ id: 'b', reason: 'dropped', tokensSaved: 10 }])
  })

  test('gives room back: a section shortened before a drop gets its full text again', () => {
    const sections = [sec('mid', 'M'.repeat(10), 5, ['M'.repeat(4)]), sec('low', 'L'.repeat(12), 1)]
    // shortening mid (10 -> 4) is not enough for budget 12 with low (12), so low is dropped
    // and mid's full text fits again
    const r = fitSections(sections, 12, chars)
    expect(r.kept).toEqual([sections[0]])
    expect(r.omissions).toEqual([{ id: 'low', reason: 'dropped', tokensSaved: 12 }])
  })

  test('among equal priorities the later section goes first; a longer "shorter" form is skipped', () => {
    const sections = [sec('x', 'X'.repeat(5), 1), sec('y', 'Y'.repeat(5), 1, ['Y'.repeat(9)])]
    const r = fitSections(sections, 6, chars)
    expect(r.kept.map((s) => s.id)).toEqual(['x'])
  })

  test('a zero budget drops everything but empty texts', () => {
    const sections = [sec('a', 'aaa', 1), sec('b', '', 2)]
    expect(fitSections(sections, 0, chars).kept).toEqual([sections[1]])
  })

  test.each([
    ['NaN', Number.NaN],
    ['negative', -1],
    ['-0.5', -0.5],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['a string', '100'],
    ['undefined', undefined],
  ])('a budget that is %s is a ValidationError naming budgetTokens', (_, budget) => {
    const error = catchError(() => fitSections([sec('a', 'aaa', 1)], budget as number, chars))
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as ValidationError).message).toContain('budgetTokens')
  })

  test('a budget is refused exactly when the zod check refuses it (the fast path agrees)', () => {
    const zodBudget = zm.number().check(zm.gte(0))
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.constant(-0), fc.anything()), (budget) => {
        let error: unknown
        try {
          fitSections([sec('a', 'aaa', 1)], budget as number, chars)
        } catch (e) {
          error = e
        }
        expect(ValidationError.isInstance(error)).toBe(!zodBudget.safeParse(budget).success)
      }),
    )
  })

  test.each([
    ['undefined', undefined],
    ['null', null],
    ['an object', { 0: sec('a', 'aaa', 1), length: 1 }],
    ['a string', 'sections'],
    ['a Set', new Set([sec('a', 'aaa', 1)])],
  ])('a section list that is %s is a ValidationError, not a TypeError', (_, sections) => {
    const error = catchError(() => fitSections(sections as unknown as Section[], 10, chars))
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as ValidationError).issues[0]?.path).toBe('sections')
  })

  test('a malformed section is a ValidationError naming its index and field', () => {
    const bad = [sec('a', 'aaa', 1), { id: 'b', text: 42, priority: 1, cache: 'stable' }, null]
    const error = catchError(() => fitSections(bad as Section[], 10, chars))
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual(['1.text', '2'])
    const nanPriority = catchError(() => fitSections([sec('a', 'a', Number.NaN)], 10, chars))
    expect(ValidationError.isInstance(nanPriority)).toBe(true)
  })

  test('a counter without count() is a ValidationError', () => {
    for (const counter of [undefined, null, {}, { count: 1 }]) {
      const error = catchError(() => fitSections([], 10, counter as unknown as TokenCounter))
      expect(ValidationError.isInstance(error)).toBe(true)
    }
  })

  test('property: any finite budget ≥ 0 is accepted and the result fits it', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 100, noNaN: true }), (budget) => {
        const sections = [sec('a', 'aaaa', 1), sec('b', 'bb', 2, ['b'])]
        expect(fitSections(sections, budget, chars).tokens).toBeLessThanOrEqual(budget)
      }),
    )
  })

  const sectionArb = fc
    .array(
      fc.record({
        text: fc.string({ maxLength: 40 }),
        priority: fc.integer({ min: 0, max: 5 }),
        shorter: fc.option(fc.array(fc.string({ maxLength: 30 }), { maxLength: 3 }), {
          nil: undefined,
        }),
      }),
      { maxLength: 25 },
    )
    .map((items) => items.map((it, i) => sec(`s${i}`, it.text, it.priority, it.shorter)))

  test('property: the result fits, order and priority hold, output is deterministic', () => {
    fc.assert(
      fc.property(sectionArb, fc.integer({ min: 0, max: 400 }), (sections, budget) => {
        const r = fitSections(sections, budget, chars)
        // fits, and the reported total is the real total
        const total = r.kept.reduce((n, s) => n + s.text.length, 0)
        expect(total).toBe(r.tokens)
        expect(total).toBeLessThanOrEqual(budget)
        // original order kept; every kept text is the section's text or one of its forms
        const ids = r.kept.map((s) => Number(s.id.slice(1)))
        expect([...ids].sort((a, b) => a - b)).toEqual(ids)
        for (const k of r.kept) {
          const src = sections[Number(k.id.slice(1))]!
          expect([src.text, ...(src.shorter ?? [])]).toContain(k.text)
        }
        // never a higher priority dropped while a lower one is kept
        const dropped = r.omissions.filter((o) => o.reason === 'dropped')
        const keptMin = Math.min(...r.kept.map((s) => s.priority))
        for (const d of dropped) {
          expect(sections[Number(d.id.slice(1))]!.priority).toBeLessThanOrEqual(keptMin)
        }
        // every section is accounted for exactly once
        const shortened = r.omissions.filter((o) => o.reason === 'shortened').map((o) => o.id)
        expect(r.kept.length + dropped.length).toBe(sections.length)
        for (const id of shortened) expect(r.kept.some((k) => k.id === id)).toBe(true)
        // deterministic
        expect(fitSections(sections, budget, chars)).toEqual(r)
      }),
      { numRuns: 400 },
    )
  })

  test('property: nothing is omitted when everything fits', () => {
    fc.assert(
      fc.property(sectionArb, (sections) => {
        const total = sections.reduce((n, s) => n + s.text.length, 0)
        const r = fitSections(sections, total, chars)
        return r.omissions.length === 0 && r.kept.length === sections.length
      }),
    )
  })

  test('property: each distinct text is counted once', () => {
    fc.assert(
      fc.property(sectionArb, fc.integer({ min: 0, max: 200 }), (sections, budget) => {
        const seen = new Map<string, number>()
        const counting: TokenCounter = {
          id: 'counting',
          kind: 'exact',
          count: (t) => {
            seen.set(t, (seen.get(t) ?? 0) + 1)
            return t.length
          },
        }
        fitSections(sections, budget, counting)
        return [...seen.values()].every((n) => n === 1)
      }),
    )
  })
})

describe('rendering', () => {
  test('renderSections joins non-empty texts with a blank line', () => {
    expect(renderSections([{ text: 'a' }, { text: '' }, { text: 'b' }])).toBe('a\n\nb')
  })

  test('renderOmissionNotice is empty for no omissions and exact otherwise', () => {
    expect(renderOmissionNotice([])).toBe('')
    const notice = renderOmissionNotice(
      [
        { id: 'preload:src/a.ts', reason: 'dropped', tokensSaved: 1200 },
        { id: 'evil\nid', reason: 'dropped', tokensSaved: 5 },
        { id: 'AGENTS.md', reason: 'shortened', tokensSaved: 300 },
      ],
      { maxIds: 1 },
    )
    expect(notice).toBe(
      [
        '[Context note: some material was left out to fit the token budget.]',
        'Left out (2, ~1,205 tokens): preload:src/a.ts, and 1 more',
        'Shortened (1, ~300 tokens): AGENTS.md',
        'Ask for or read anything listed here if you need it.',
      ].join('\n'),
    )
    expect(renderOmissionNotice([{ id: 'a\nb', reason: 'dropped', tokensSaved: 1 }])).toContain(
      ': a b\n',
    )
  })

  test('property: the tokens saved read as toLocaleString("en-US") writes them', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e18, noNaN: true }), (tokensSaved) => {
        const notice = renderOmissionNotice([{ id: 'a', reason: 'dropped', tokensSaved }])
        expect(notice).toContain(`~${Math.round(tokensSaved).toLocaleString('en-US')} tokens`)
      }),
    )
  })
})

test('a user section may say where it goes relative to the user text', () => {
  const base = { id: 'plan', text: '## Your Plan', priority: 90, cache: 'volatile' as const }
  expect(SectionSchema.parse({ ...base, placement: 'before' }).placement).toBe('before')
  expect(SectionSchema.parse(base).placement).toBeUndefined()
  expect(SectionSchema.safeParse({ ...base, placement: 'top' }).success).toBe(false)
})

describe('required sections and bad counts', () => {
  const section = (id: string, chars: number, priority: number, required?: boolean): Section => ({
    id,
    text: 'x'.repeat(chars),
    priority,
    cache: 'stable',
    ...(required === undefined ? {} : { required }),
  })

  test('a required section is never dropped; over budget alone, the result says it does not fit', () => {
    const sections = [section('identity', 4000, 1, true), section('files', 400, 50)]
    const fit = fitSections(sections, 100, defaultTokenCounter)
    expect(fit.kept.map((s) => s.id)).toEqual(['identity'])
    expect(fit.omissions.map((o) => o.id)).toEqual(['files'])
    expect(fit.fits).toBe(false)
    expect(fit.tokens).toBeGreaterThan(100)
    const roomy = fitSections(sections, 1_000_000, defaultTokenCounter)
    expect(roomy.fits).toBe(true)
  })

  test('property: required sections are always kept; without them the result always fits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(2000), fc.integer({ min: -5, max: 5 }), fc.boolean()), {
          maxLength: 12,
        }),
        fc.nat(3000),
        (specs, budget) => {
          const sections = specs.map(([chars, priority, required], i) =>
            section(`s${i}`, chars, priority, required),
          )
          const fit = fitSections(sections, budget, defaultTokenCounter)
          for (const s of sections) {
            if (s.required) expect(fit.kept.some((k) => k.id === s.id)).toBe(true)
          }
          if (!sections.some((s) => s.required)) expect(fit.fits).toBe(true)
          if (fit.fits) expect(fit.tokens).toBeLessThanOrEqual(budget)
        },
      ),
    )
  })

  test('a counter that returns NaN, a negative number or a string is a ValidationError', () => {
    for (const bad of [Number.NaN, -3, '5', Number.POSITIVE_INFINITY]) {
      const counter = { id: 'bad', kind: 'estimate' as const, count: () => bad as number }
      expect(() => fitSections([section('a', 10, 1)], 5, counter)).toThrow(ValidationError)
    }
  })

  test('the omission notice never prints NaN: an omission without a count adds no figure', () => {
    const text = renderOmissionNotice([{ id: 'a', reason: 'dropped' } as never])
    expect(text).not.toContain('NaN')
    expect(text).toContain('Left out (1): a')
    const mixed = renderOmissionNotice([
      { id: 'a', reason: 'dropped', tokensSaved: 40 },
      { id: 'b', reason: 'dropped', tokensSaved: Number.NaN },
    ])
    expect(mixed).toContain('Left out (2, ~40 tokens): a, b')
  })
})

describe('the zod-free check fitSections uses', () => {
  const value = fc.oneof(
    fc.constantFrom('', 'a', 'stable', 'volatile', 'before', 'after', 'middle'),
    fc.constantFrom(0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY, true, false, null, undefined),
    fc.constantFrom([], ['x'], [1], {}, new Date(0)),
  )
  const good = {
    id: fc.constantFrom('s', 'preload:a.ts'),
    text: fc.string({ maxLength: 3 }),
    priority: fc.integer({ min: -3, max: 3 }),
    cache: fc.constantFrom('stable', 'volatile'),
    shorter: fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
    placement: fc.constantFrom('before', 'after'),
    required: fc.boolean(),
  }
  // each field valid most of the time, sometimes any value, sometimes missing; extra keys too
  const fields: Record<string, fc.Arbitrary<unknown>> = { extra: value }
  for (const [k, v] of Object.entries(good)) {
    fields[k] = fc.oneof({ weight: 8, arbitrary: v as fc.Arbitrary<unknown> }, value)
  }
  const section = fc.record(fields, { requiredKeys: ['text', 'priority', 'cache'] })

  test('property: accepts exactly the section lists SectionSchema accepts, and names its first bad path', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof(fc.array(section, { maxLength: 3 }), value), (v) => {
        const check = SectionListCheck.safeParse(v)
        const classic = SectionSchema.array().safeParse(v)
        expect(check.success).toBe(classic.success)
        if (check.success) {
          accepted++
          expect(check.data).toBe(v)
        } else if (!classic.success) {
          expect(check.error.issues[0]?.path).toEqual(classic.error.issues[0]?.path)
        }
      }),
      { numRuns: 3000 },
    )
    expect(accepted).toBeGreaterThan(300)
  })
})
