import fc from 'fast-check'
import { expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { escapeForPrompt, hasPromptUnsafeChars, PROMPT_UNSAFE_CHARS } from './prompt-text.js'

test('the characters that can break, reorder or hide a line are escaped visibly', () => {
  expect(escapeForPrompt('a\u2028b\u202Ec\u2066d\u0085e\u200Bf\uFEFFg\nh')).toBe(
    'a\\u2028b\\u202ec\\u2066d\\u0085e\\u200bf\\ufeffg\\u000ah',
  )
  expect(escapeForPrompt('plain café 東京 😀')).toBe('plain café 東京 😀')
  expect(escapeForPrompt('lone \ud800 surrogate')).toBe('lone \ufffd surrogate')
})

test('property: the result never holds an unsafe character, and safe text is unchanged', () => {
  fc.assert(
    fc.property(anyCodePoints({ maxLength: 60 }), (s) => {
      const out = escapeForPrompt(s)
      expect(hasPromptUnsafeChars(out)).toBe(false)
      const wellFormed = !/[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))
      if (!PROMPT_UNSAFE_CHARS.test(s) && wellFormed) expect(out).toBe(s)
    }),
    { numRuns: 1000 },
  )
})
