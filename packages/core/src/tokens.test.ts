import fc from 'fast-check'
import { estimateTokenCount } from 'tokenx'
import { describe, expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { estimateTokens } from './estimate.js'
import { getModelInfo } from './models.js'
import { calibrate, createTokenCounter, defaultTokenCounter } from './tokens.js'

const prose =
  'The agent reads the workspace files, plans its edits and then writes them in one batch. ' +
  'It keeps a short log of what it tried, so the next session can pick up where it stopped.\n'
const code = `export function fit(sections: Section[], budget: number): Result {\n  const kept = sections.filter((s) => s.priority > 0)\n  return { kept, tokens: kept.length * 42 }\n}\n`
const json = JSON.stringify({
  users: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `user${i}`, tags: ['a', 'b'] })),
})

describe('estimateTokens', () => {
  test('stays within a band of tokenx on prose, code and JSON, never far below it', () => {
    for (const sample of [prose.repeat(20), code.repeat(20), json]) {
      const ratio = estimateTokens(sample) / estimateTokenCount(sample)
      expect(ratio).toBeGreaterThan(0.9)
      expect(ratio).toBeLessThan(1.6)
    }
  })

  test('does not under-count dense text the way chars/4 does', () => {
    const cjk = '日本語のテキストです。これは長い文章になります。'.repeat(50)
    expect(estimateTokens(cjk)).toBeGreaterThanOrEqual(cjk.length * 0.8)
    expect(estimateTokens(json)).toBeGreaterThan(json.length / 4)
    const minified = 'a.b(c,d);e=f[g]||{};h&&i(j);'.repeat(100)
    expect(estimateTokens(minified)).toBeGreaterThan(minified.length / 4)
  })

  test('counts emoji, lone surrogates and special-token text without throwing', () => {
    expect(estimateTokens('')).toBe(0)
    expect(estimateTokens('🎉')).toBe(2)
    expect(estimateTokens('\ud800')).toBe(2)
    expect(estimateTokens('\udc00x')).toBe(3)
    expect(estimateTokens('<|endoftext|><|im_start|>')).toBeGreaterThan(4)
  })

  test('is additive across a newline split (no hidden state)', () => {
    const a = 'first line of text'
    const b = 'second line here'
    expect(estimateTokens(`${a}\n${b}`)).toBe(estimateTokens(a) + 1 + estimateTokens(b))
  })

  test('property: total, finite and non-negative on any string', () => {
    fc.assert(
      fc.property(anyCodePoints(), (s) => {
        const n = estimateTokens(s)
        return Number.isInteger(n) && n >= 0 && n <= s.length * 2
      }),
      { numRuns: 500 },
    )
  })
})

describe('createTokenCounter', () => {
  test('applies the safety factor and the model tokenizer factor, rounding up', () => {
    const base = estimateTokens(prose)
    expect(createTokenCounter({ safetyFactor: 1 }).count(prose)).toBe(base)
    expect(defaultTokenCounter.count(prose)).toBe(Math.ceil(base * 1.1))
    const opus47 = createTokenCounter({ model: getModelInfo('claude-opus-4-7') })
    expect(opus47.count(prose)).toBe(Math.ceil(base * 1.1 * 1.35))
    expect(opus47.id).toBe('estimate:claude-opus-4-7:x1.485')
    expect(opus47.kind).toBe('estimate')
  })

  test('ignores nonsense factors instead of producing NaN', () => {
    const c = createTokenCounter({
      safetyFactor: Number.NaN,
      model: { id: 'm', tokenizerFactor: -2 },
    })
    expect(c.count(prose)).toBe(Math.ceil(estimateTokens(prose) * 1.1))
  })

  test('handles a 10 MB input', () => {
    const big = `${prose}<|endoftext|>\ud83d`.repeat(Math.ceil(10_000_000 / (prose.length + 15)))
    const n = defaultTokenCounter.count(big)
    expect(n).toBeGreaterThan(big.length / 6)
    expect(Number.isFinite(n)).toBe(true)
  })

  test('never throws, even on non-strings passed through untyped code', () => {
    const count = defaultTokenCounter.count as (x: unknown) => number
    expect(count(undefined)).toBe(0)
    expect(count(42)).toBe(0)
  })
})

describe('calibrate', () => {
  test('moves estimates toward the billed count and converges', () => {
    const base = createTokenCounter({ safetyFactor: 1 })
    const prompt = prose.repeat(10)
    const estimate = base.count(prompt)
    const actual = Math.round(estimate * 1.3)
    let counter = calibrate(base, estimate, actual)
    expect(counter.samples).toBe(1)
    expect(counter.count(prompt)).toBe(Math.ceil(estimate * (actual / estimate)))
    for (let i = 0; i < 30; i++) counter = calibrate(counter, counter.count(prompt), actual)
    expect(Math.abs(counter.count(prompt) - actual) / actual).toBeLessThan(0.02)
    expect(counter.base).toBe(base)
    expect(counter.id).toMatch(/^estimate:any:x1~cal1\.3/)
  })

  test('keeps adapting when the truth changes (bounded memory)', () => {
    const base = createTokenCounter({ safetyFactor: 1 })
    let counter = calibrate(base, 100, 200)
    for (let i = 0; i < 50; i++) counter = calibrate(counter, 100 * counter.correction, 200)
    for (let i = 0; i < 60; i++) counter = calibrate(counter, 100 * counter.correction, 100)
    expect(counter.correction).toBeLessThan(1.1)
  })

  test('ignores unusable observations and clamps outliers', () => {
    const base = createTokenCounter()
    const same = calibrate(base, 0, 100)
    expect(same.correction).toBe(1)
    expect(calibrate(same, 100, Number.NaN)).toBe(same)
    expect(calibrate(base, 10, 1_000_000).correction).toBe(4)
  })
})
