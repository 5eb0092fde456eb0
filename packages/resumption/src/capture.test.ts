import { createTokenCounter, defaultTokenCounter, ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { addAnchor, captureStreamTail, recordStreamTail } from './capture.js'
import { markInjected } from './injected-text.js'
import { emptySelfState } from './self-state.js'

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff
const clock = () => Date.parse('2026-03-01T12:00:00.000Z')

/** True when `s` starts with a lone low surrogate that `source` paired with a high one before it. */
function splitsPair(source: string, tail: string): boolean {
  if (tail.length === 0) return false
  const at = source.length - tail.length - (source.length - source.trimEnd().length)
  return at > 0 && isLow(tail.charCodeAt(0)) && isHigh(source.charCodeAt(at - 1))
}

describe('captureStreamTail', () => {
  test('short text comes back whole, trimmed', () => {
    expect(captureStreamTail('  just this thought \n')).toBe('just this thought')
  })

  test('long text is cut to about the budget, at a word boundary', () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`)
    const tail = captureStreamTail(words.join(' '), { tokens: 50 })
    expect(defaultTokenCounter.count(tail)).toBeLessThanOrEqual(50)
    expect(defaultTokenCounter.count(tail)).toBeGreaterThan(35)
    expect(tail.endsWith('word399')).toBe(true)
    // begins with a whole word
    expect(tail).toMatch(/^word\d+ /)
    expect(words).toContain(tail.split(' ')[0])
  })

  test('prefers a nearby line boundary', () => {
    const text = `${'filler text here '.repeat(60)}half a line\nsecond line goes on and on and on and on and on and on with more words until the end`
    const tail = captureStreamTail(text, { tokens: 30 })
    expect(tail.startsWith('second line')).toBe(true)
  })

  test('a single giant word is cut inside, never between surrogate halves', () => {
    const text = '😀'.repeat(500)
    const tail = captureStreamTail(text, { tokens: 20 })
    expect(tail.length).toBeGreaterThan(0)
    expect(isLow(tail.charCodeAt(0))).toBe(false)
    expect([...tail].every((ch) => ch === '😀')).toBe(true)
  })

  test('empty text and non-positive budgets give the empty string', () => {
    expect(captureStreamTail('')).toBe('')
    expect(captureStreamTail('   \n ')).toBe('')
    expect(captureStreamTail('some words', { tokens: 0 })).toBe('')
    expect(captureStreamTail('some words', { tokens: Number.NaN })).toBe('')
  })

  const textArb = fc
    .array(
      fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 12 }),
        fc.constantFrom(' ', '\n', '😀', '𝔘', '中文', '\uD83D', '\uDE00', 'a-b', '  '),
      ),
      { maxLength: 300 },
    )
    .map((parts) => parts.join(''))

  test('property: a suffix of the input, within budget, never splitting a surrogate pair', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 1, max: 120 }), (text, tokens) => {
        const counter = createTokenCounter()
        const tail = captureStreamTail(text, { tokens, counter })
        expect(text.trimEnd().endsWith(tail)).toBe(true)
        expect(counter.count(tail)).toBeLessThanOrEqual(tokens)
        expect(splitsPair(text, tail)).toBe(false)
        if (tail.length > 0) {
          expect(tail).toBe(tail.trim())
        }
      }),
      { numRuns: 400 },
    )
  })

  test('property: when the cut lands inside text with spaces, it starts on a word', () => {
    const wordArb = fc.stringMatching(/^[a-z]{1,8}$/)
    fc.assert(
      fc.property(fc.array(wordArb, { minLength: 50, maxLength: 300 }), (ws) => {
        const text = ws.join(' ')
        const tail = captureStreamTail(text, { tokens: 20 })
        const at = text.length - tail.length
        expect(at === 0 || text[at - 1] === ' ').toBe(true)
      }),
      { numRuns: 200 },
    )
  })
})

describe('addAnchor', () => {
  const base = emptySelfState('s', { now: clock })

  test('keeps the most recent N, oldest dropped, input untouched', () => {
    let state = base
    for (let i = 0; i < 8; i++) state = addAnchor(state, { raw: `phrase ${i}` }, { max: 5 })
    expect(state.verbatimAnchors.map((a) => a.raw)).toEqual([
      'phrase 3',
      'phrase 4',
      'phrase 5',
      'phrase 6',
      'phrase 7',
    ])
    expect(base.verbatimAnchors).toEqual([])
  })

  test('a repeated anchor moves to the end instead of repeating', () => {
    let state = addAnchor(base, { raw: 'a' })
    state = addAnchor(state, { raw: 'b' })
    state = addAnchor(state, { raw: 'a', triggerType: 'again' })
    expect(state.verbatimAnchors.map((a) => `${a.raw}:${a.triggerType}`)).toEqual([
      'b:manual',
      'a:again',
    ])
  })

  test('caps each anchor at maxChars, at a word, with an ellipsis', () => {
    const state = addAnchor(base, { raw: 'one two three four five six seven' }, { maxChars: 20 })
    const raw = state.verbatimAnchors[0]!.raw
    expect(raw.length).toBeLessThanOrEqual(20)
    expect(raw).toBe('one two three four…')
  })

  test('stamps capturedAt from the clock and defaults triggerType', () => {
    const state = addAnchor(base, { raw: 'x' }, { now: clock })
    expect(state.verbatimAnchors[0]).toEqual({
      raw: 'x',
      triggerType: 'manual',
      capturedAt: '2026-03-01T12:00:00.000Z',
    })
  })

  test('an empty anchor (or one made only of injected text) is a ValidationError', () => {
    expect(() => addAnchor(base, { raw: '   ' })).toThrow(ValidationError)
    const error = (() => {
      try {
        addAnchor(base, { raw: markInjected('injected stuff') })
      } catch (e) {
        return e
      }
    })()
    expect(ValidationError.isInstance(error)).toBe(true)
  })

  test('property: never more than max, each within maxChars, never a split pair', () => {
    fc.assert(
      fc.property(
        fc.array(anyCodePoints({ minLength: 1, maxLength: 80 }), { maxLength: 20 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 2, max: 40 }),
        (raws, max, maxChars) => {
          let state = base
          for (const raw of raws) {
            try {
              state = addAnchor(state, { raw }, { max, maxChars })
            } catch (error) {
              expect(ValidationError.isInstance(error)).toBe(true)
            }
          }
          expect(state.verbatimAnchors.length).toBeLessThanOrEqual(max)
          for (const a of state.verbatimAnchors) {
            expect(a.raw.length).toBeLessThanOrEqual(maxChars)
            const cut = a.raw.endsWith('…') ? a.raw.slice(0, -1) : a.raw
            const last = cut.charCodeAt(cut.length - 1)
            if (a.raw.endsWith('…') && cut.length > 0) expect(isHigh(last)).toBe(false)
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('recordStreamTail', () => {
  test('captures the tail with its size, counter, session, cwd and branch', () => {
    const counter = createTokenCounter({ safetyFactor: 1.2 })
    const state = recordStreamTail(emptySelfState('old'), 'and then the idea was this', {
      sessionKey: 'new',
      counter,
      now: clock,
      cwd: '/repo',
      branch: 'main',
    })
    expect(state.sessionId).toBe('new')
    expect(state.streamTail).toEqual({
      raw: 'and then the idea was this',
      sessionKey: 'new',
      capturedAt: '2026-03-01T12:00:00.000Z',
      tokenCount: counter.count('and then the idea was this'),
      counterId: counter.id,
    })
    expect(state.cwd).toBe('/repo')
    expect(state.branch).toBe('main')
  })

  test('nothing new to capture keeps the previous tail and its cwd', () => {
    const first = recordStreamTail(emptySelfState('a'), 'first words', {
      sessionKey: 'a',
      cwd: '/one',
    })
    const next = recordStreamTail(first, markInjected('only injected'), {
      sessionKey: 'b',
      cwd: '/two',
    })
    expect(next.streamTail).toEqual(first.streamTail)
    expect(next.cwd).toBe('/one')
  })
})
