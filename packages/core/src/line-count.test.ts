import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chunksOf } from '../../../test-utils/chunks.js'
import { ValidationError } from './errors.js'
import { countLines, LineCounter } from './line-count.js'

/** The documented rule, written the slow and obvious way. */
function reference(text: string): number {
  const t = text.startsWith('\uFEFF') ? text.slice(1) : text
  if (t === '') return 0
  const parts = t.split(/\r\n|\n|\r/)
  return parts[parts.length - 1] === '' ? parts.length - 1 : parts.length
}

const lineText = fc.string({
  unit: fc.constantFrom('a', 'b', ' ', '\n', '\r', '\r\n', '\uFEFF', '\u2028', 'é'),
  maxLength: 60,
})

describe('the line-count rule', () => {
  test.each([
    ['', 0],
    ['a', 1],
    ['a\n', 1],
    ['a\n\n', 2],
    ['\n', 1],
    ['a\r\nb', 2],
    ['a\rb\r', 2],
    ['a\r\n\r\n', 2],
    ['\uFEFF', 0],
    ['\uFEFFa\n', 1],
    ['a\u2028b', 1],
  ])('%j has %i lines', (text, lines) => {
    expect(countLines(text)).toBe(lines)
  })

  test('property: matches the documented rule for any text', () => {
    fc.assert(
      fc.property(lineText, (text) => countLines(text) === reference(text)),
      {
        numRuns: 500,
      },
    )
  })

  test('property: any chunking gives the same counts (a \\r\\n split across chunks counts once)', () => {
    fc.assert(
      fc.property(lineText, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const whole = new LineCounter()
        whole.push(text)
        const chunked = new LineCounter()
        for (const c of chunksOf(text, cuts)) chunked.push(c)
        expect(chunked.result()).toEqual(whole.result())
      }),
      { numRuns: 500 },
    )
  })

  test('line endings are counted by kind', () => {
    const c = new LineCounter()
    c.push('a\r')
    c.push('\nb\rc\nd')
    expect(c.result()).toEqual({ lines: 4, lf: 1, crlf: 1, cr: 1 })
  })
})

test('countLines on a non-string is a ValidationError, not a TypeError', () => {
  for (const bad of [null, undefined, 42, {}, ['a\n']]) {
    expect(() => countLines(bad as unknown as string)).toThrow(ValidationError)
  }
})
