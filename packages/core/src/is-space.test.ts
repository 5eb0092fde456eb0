import { describe, expect, test } from 'vitest'
import { isSpace } from './is-space.js'

describe('isSpace', () => {
  test('property: agrees with /\\s/ and String.prototype.trim on every UTF-16 code unit', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const ch = String.fromCharCode(code)
      const expected = /\s/.test(ch)
      if (isSpace(code) !== expected || (ch.trim() === '') !== expected) {
        throw new Error(`isSpace disagrees at U+${code.toString(16)}`)
      }
    }
    expect(isSpace(Number.NaN)).toBe(false)
    expect(isSpace(''.charCodeAt(0))).toBe(false)
  })
})
