import fc from 'fast-check'
import { expect, test } from 'vitest'
import { textMemo } from './text-memo.js'
import { digest, sha256Hex } from './trace.js'

// issue 46: work redone on every model call over unchanged texts (section digests) is remembered
// by content, bounded; a remembered value must be the one a fresh computation gives.

test('a memo within tight bounds always answers what a fresh computation does', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ maxLength: 12 }), { maxLength: 60 }),
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 40 }),
      (texts, minChars, maxEntries, maxChars) => {
        let calls = 0
        const fresh = (t: string) => `${t.length}:${[...t].reverse().join('')}`
        const memo = textMemo(
          (t) => {
            calls++
            return fresh(t)
          },
          { minChars, maxEntries, maxChars },
        )
        for (const t of [...texts, ...texts]) expect(memo(t)).toBe(fresh(t))
        expect(calls).toBeLessThanOrEqual(texts.length * 2)
      },
    ),
  )
})

test('a text seen again is not computed again while it is remembered', () => {
  let calls = 0
  const memo = textMemo(
    (t) => {
      calls++
      return t.length
    },
    { minChars: 4, maxEntries: 2, maxChars: 100 },
  )
  memo('abcd')
  memo('abcd')
  expect(calls).toBe(1)
  memo('abc') // shorter than minChars: computed every time
  memo('abc')
  expect(calls).toBe(3)
  memo('efgh')
  memo('ijkl') // the third entry evicts the oldest, 'abcd'
  memo('abcd')
  expect(calls).toBe(6)
})

test('digest answers the SHA-256 prefix of the text, remembered or not', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 100, maxLength: 300 }), (text) => {
      expect(digest(text)).toBe(sha256Hex(text).slice(0, 12))
      expect(digest(text)).toBe(sha256Hex(text).slice(0, 12))
    }),
  )
})
