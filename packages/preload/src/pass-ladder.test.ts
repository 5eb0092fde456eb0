import { createTokenCounter, type Section } from '@contextkit/core'
import { SectionSchema } from '@contextkit/core/schemas'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import * as z from 'zod'
import {
  fitPassLadder,
  HARD_TRUNCATION_MARKER,
  LADDER_PRIORITIES,
  PartsCheck,
  type PassLadderParts,
  passLadderSections,
  truncateToTokens,
} from './pass-ladder.js'

const counter = createTokenCounter({ safetyFactor: 1 })
const words = (w: string, n: number) => Array.from({ length: n }, () => w).join(' ')

function parts(over: Partial<PassLadderParts> = {}): PassLadderParts {
  return {
    header: '## Instruction\nMake the button red.',
    elements: {
      full: `### Elements\n- button.primary\n<button class="primary">${words('html', 200)}</button>`,
      lite: '### Elements\n- button.primary',
    },
    images: '### Images\n- ref.png (100x100)',
    vision: `### Vision\n${words('vision', 200)}`,
    screenshot: '### Screenshot\nattached',
    backend: `### Backend\n${words('endpoint', 200)}`,
    preloaded: [
      { id: 'preload:a.jsx', text: words('alpha', 200), priority: 5, cache: 'volatile' },
      { id: 'preload:b.jsx', text: words('beta', 200), priority: 5, cache: 'volatile' },
    ] satisfies Section[],
    filesToModify: '### Files to Modify\n- src/App.jsx',
    ...over,
  }
}

const ids = (r: { kept: Section[] }) => r.kept.map((s) => s.id)
const total = (p: PassLadderParts) =>
  passLadderSections(p).reduce((sum, s) => sum + counter.count(s.text), 0)
const without = (p: PassLadderParts, ...drop: string[]) =>
  passLadderSections(p)
    .filter((s) => !drop.includes(s.id))
    .reduce((sum, s) => sum + counter.count(s.shorter?.[0] ?? s.text), 0)

describe('the seed pass ladder on core fitSections', () => {
  test('pass 1: everything fits at full fidelity', () => {
    const p = parts()
    const r = fitPassLadder(p, total(p), counter)
    expect(r.omissions).toEqual([])
    expect(r.text).toContain('<button class="primary">')
    expect(r.hardTruncated).toBe(false)
  })

  test('pass 2: HTML goes first, before anything is dropped', () => {
    const p = parts()
    const r = fitPassLadder(p, total(p) - 50, counter)
    expect(r.omissions.map((o) => `${o.id}:${o.reason}`)).toEqual(['payload:elements:shortened'])
    expect(r.text).not.toContain('<button')
    expect(r.text).toContain(words('vision', 5))
  })

  test('pass 3: then vision summaries', () => {
    const p = parts()
    const r = fitPassLadder(p, without(p, 'payload:vision'), counter)
    expect(ids(r)).not.toContain('payload:vision')
    expect(ids(r)).toContain('preload:a.jsx')
    expect(ids(r)).toContain('payload:images')
  })

  test('pass 4: then pre-loaded files (the seed test: files dropped, images kept)', () => {
    const p = parts()
    const r = fitPassLadder(
      p,
      without(p, 'payload:vision', 'preload:a.jsx', 'preload:b.jsx'),
      counter,
    )
    expect(ids(r)).toEqual([
      'payload:header',
      'payload:elements',
      'payload:images',
      'payload:screenshot',
      'payload:backend',
      'payload:files-to-modify',
    ])
    expect(r.text).not.toContain('alpha')
    expect(r.text).toContain('ref.png')
  })

  test('pass 5 and 6: then images with the screenshot, then backend', () => {
    const p = parts()
    const five = fitPassLadder(
      p,
      without(
        p,
        'payload:vision',
        'preload:a.jsx',
        'preload:b.jsx',
        'payload:images',
        'payload:screenshot',
      ),
      counter,
    )
    expect(ids(five)).toEqual([
      'payload:header',
      'payload:elements',
      'payload:backend',
      'payload:files-to-modify',
    ])
    const core = ['payload:header', 'payload:elements', 'payload:files-to-modify']
    const six = fitPassLadder(
      p,
      without(
        p,
        ...ids(five).filter((id) => !core.includes(id)),
        'payload:vision',
        'preload:a.jsx',
        'preload:b.jsx',
        'payload:images',
        'payload:screenshot',
      ),
      counter,
    )
    expect(ids(six)).toEqual(core)
    expect(six.text).toContain('Make the button red.')
    expect(six.text).toContain('src/App.jsx')
  })

  test('pass 7: hard truncation of the core, within budget', () => {
    const p = parts({ header: `## Instruction\n${words('please', 300)}` })
    const r = fitPassLadder(p, 100, counter)
    expect(r.hardTruncated).toBe(true)
    expect(r.text.endsWith(HARD_TRUNCATION_MARKER)).toBe(true)
    expect(r.text.startsWith('## Instruction\nplease')).toBe(true)
    expect(counter.count(r.text)).toBeLessThanOrEqual(100)
    expect(r.tokens).toBeLessThanOrEqual(100)
    expect(r.omissions.find((o) => o.id === 'payload:backend')?.reason).toBe('dropped')
  })

  test('pre-loaded sections take the ladder priority, whatever they had', () => {
    const sections = passLadderSections(parts())
    const pre = sections.filter((s) => s.id.startsWith('preload:'))
    expect(pre.map((s) => s.priority)).toEqual([
      LADDER_PRIORITIES.preloaded,
      LADDER_PRIORITIES.preloaded,
    ])
    expect(
      passLadderSections(parts({ preloaded: 'files' })).some((s) => s.id === 'payload:preloaded'),
    ).toBe(true)
  })

  test('property: always within budget, and drops follow the seed order', () => {
    const order = [
      'payload:vision',
      'preload:b.jsx',
      'preload:a.jsx',
      'payload:screenshot',
      'payload:images',
      'payload:backend',
    ]
    fc.assert(
      fc.property(fc.integer({ min: 0, max: total(parts()) + 50 }), (budget) => {
        const r = fitPassLadder(parts(), budget, counter)
        expect(r.tokens).toBeLessThanOrEqual(budget)
        if (r.hardTruncated) return
        const dropped = r.omissions.filter((o) => o.reason === 'dropped').map((o) => o.id)
        // Dropped sections are always a prefix of the seed's order.
        expect(dropped).toEqual(order.slice(0, dropped.length))
        // Each drop was needed: with everything shortened, the last dropped section would not fit.
        if (dropped.length > 0) {
          const last = dropped[dropped.length - 1]!
          expect(without(parts(), ...dropped.slice(0, -1))).toBeGreaterThan(budget)
          expect(without(parts(), ...dropped)).toBeLessThanOrEqual(budget)
          expect(last).toBe(order[dropped.length - 1])
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('truncateToTokens', () => {
  test('returns text that fits unchanged, cuts the rest, and gives up cleanly', () => {
    expect(truncateToTokens('hello', 10, counter)).toBe('hello')
    const cut = truncateToTokens(words('word', 100), 20, counter)
    expect(cut.endsWith(HARD_TRUNCATION_MARKER)).toBe(true)
    expect(counter.count(cut)).toBeLessThanOrEqual(20)
    expect(truncateToTokens(words('word', 100), 0, counter)).toBe('')
  })

  test('a budget that is not a number >= 0 throws a ValidationError', () => {
    for (const budget of [Number.NaN, -1, '10']) {
      expect(() => truncateToTokens('hello', budget as number, counter)).toThrow(
        expect.objectContaining({ code: 'validation_error' }),
      )
    }
  })
})

describe('malformed ladder input', () => {
  test('parts or budget of the wrong shape throw a ValidationError, not a TypeError', () => {
    for (const bad of [
      null,
      undefined,
      'x',
      {},
      { header: 'h' },
      { ...parts(), preloaded: [{}] },
    ]) {
      const p = bad as unknown as PassLadderParts
      expect(() => passLadderSections(p)).toThrow(
        expect.objectContaining({ code: 'validation_error' }),
      )
      expect(() => fitPassLadder(p, 100, counter)).toThrow(
        expect.objectContaining({ code: 'validation_error' }),
      )
    }
    expect(() => fitPassLadder(parts(), Number.NaN, counter)).toThrow(
      expect.objectContaining({ code: 'validation_error' }),
    )
  })
})

describe('PartsCheck (core checks, without zod)', () => {
  // The classic zod schema of the parts, as users would write it with core's SectionSchema.
  const Classic = z.object({
    header: z.string(),
    elements: z.object({ full: z.string(), lite: z.string() }),
    images: z.string().optional(),
    vision: z.string().optional(),
    screenshot: z.string().optional(),
    backend: z.string().optional(),
    preloaded: z.union([z.array(SectionSchema).readonly(), z.string()]).optional(),
    filesToModify: z.string().optional(),
  })
  const junk = fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.constant(undefined))
  const text = fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 5 }) }, junk)
  const section = fc.record(
    {
      id: text,
      text,
      priority: fc.oneof(fc.integer(), fc.double(), fc.string()),
      cache: fc.constantFrom('stable', 'volatile', 'hot', 1),
      shorter: fc.oneof(fc.array(text, { maxLength: 2 }), junk),
      placement: fc.constantFrom('before', 'after', 'sideways'),
      required: fc.oneof(fc.boolean(), fc.string()),
    },
    { requiredKeys: ['id', 'text', 'priority', 'cache'] },
  )
  const value = fc.oneof(
    fc.record(
      {
        header: text,
        elements: fc.oneof(fc.record({ full: text, lite: text }, { requiredKeys: [] }), junk),
        images: text,
        vision: text,
        screenshot: text,
        backend: text,
        preloaded: fc.oneof(fc.array(section, { maxLength: 3 }), text),
        filesToModify: text,
      },
      { requiredKeys: [] },
    ),
    fc.anything(),
  )

  test('accepts exactly what the zod schema does, first-reporting at its path or below (property)', () => {
    fc.assert(
      fc.property(value, (v) => {
        const a = PartsCheck.safeParse(v)
        const b = Classic.safeParse(v)
        expect(a.success).toBe(b.success)
        if (!a.success && !b.success) {
          // at zod's path or below it: where zod stops at a union (`preloaded`), the check
          // names the bad field of the one branch a list can be (`preloaded.0.id`)
          const at = b.error.issues[0]?.path ?? []
          expect(a.error.issues[0]?.path.slice(0, at.length)).toEqual(at)
        }
      }),
      { numRuns: 1000 },
    )
  })
})
