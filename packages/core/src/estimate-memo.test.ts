import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { estimateMemoSize, estimateTokens, estimateTokensUncached } from './estimate.js'
import { createTokenCounter } from './tokens.js'

// estimateTokens remembers the counts of long texts by content; these hold the memo to the walk.
const long = (seed: string) => `${seed} `.repeat(Math.ceil(200 / (seed.length + 1)))

describe('estimateTokens memo', () => {
  test('a text changed in place (same length, other content) is counted anew', () => {
    const words = long('alpha beta gamma')
    const digits = words.replace(/[a-z]/g, '7')
    expect(digits.length).toBe(words.length)
    const first = estimateTokens(words)
    expect(estimateTokens(words)).toBe(first)
    // a memo keyed by length, or that kept the first answer, would return `first` here
    expect(estimateTokens(digits)).toBe(estimateTokensUncached(digits))
    expect(estimateTokens(digits)).not.toBe(first)
    // and through a counter built once, as the agent loop keeps one per run
    const counter = createTokenCounter()
    expect(counter.count(digits)).not.toBe(counter.count(words))
  })

  test('a remembered count is the walk of that very text, whatever was counted before', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ minLength: 120, maxLength: 400 }), fc.string()), {
          minLength: 1,
          maxLength: 20,
        }),
        (texts) => {
          for (const t of texts) expect(estimateTokens(t)).toBe(estimateTokensUncached(t))
          // second pass: the long ones now come from the memo
          for (const t of [...texts].reverse()) {
            expect(estimateTokens(t)).toBe(estimateTokensUncached(t))
          }
        },
      ),
    )
  })

  test('stays bounded: 4,096 texts at most, the oldest out first, counts still right', () => {
    const base = long('bounded memo text')
    for (let i = 0; i < 5000; i++) {
      const t = `${i} ${base}`
      expect(estimateTokens(t)).toBe(estimateTokensUncached(t))
    }
    const size = estimateMemoSize()
    expect(size.entries).toBeLessThanOrEqual(4096)
    expect(size.chars).toBeLessThanOrEqual(8 * 1024 * 1024)
    // an evicted text is walked again and still counted right
    expect(estimateTokens(`0 ${base}`)).toBe(estimateTokensUncached(`0 ${base}`))
  })

  test('refuses a non-string like the walk does', () => {
    expect(() => estimateTokens(42 as unknown as string)).toThrow(/estimateTokens/)
  })
})
