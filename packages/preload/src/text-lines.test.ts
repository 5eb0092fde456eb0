import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { countLines, cutLongLines, lineCutMarker } from './text-lines.js'

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const wellFormed = (s: string) => !LONE_SURROGATE.test(s)

describe("countLines (core's rule)", () => {
  test('\\r\\n, \\n and a lone \\r each end a line; a final terminator starts none', () => {
    expect(countLines('')).toBe(0)
    expect(countLines('a')).toBe(1)
    expect(countLines('a\n')).toBe(1)
    expect(countLines('a\nb')).toBe(2)
    expect(countLines('\n\n')).toBe(2)
    expect(countLines('a\rb')).toBe(2)
    expect(countLines('a\r\nb\r\n')).toBe(2)
  })
})

describe('cutLongLines', () => {
  test('returns the same string when nothing is too long', () => {
    const s = 'short\nlines\n'
    expect(cutLongLines(s, 10)).toEqual({ text: s, cut: 0, removed: 0 })
  })

  test('a lone \\r ends a line too, like countLines says', () => {
    const long = 'x'.repeat(12)
    expect(cutLongLines(`ab\r${long}\rcd`, 10)).toEqual({
      text: `ab\r${'x'.repeat(10)}${lineCutMarker(2)}\rcd`,
      cut: 1,
      removed: 2,
    })
    expect(cutLongLines('short\rlines\r\nhere', 6).cut).toBe(0)
  })

  test('never splits a surrogate pair', () => {
    const s = `${'a'.repeat(9)}😀😀`
    const { text } = cutLongLines(s, 10)
    expect(text).toBe('a'.repeat(9) + lineCutMarker(4))
    expect(wellFormed(text)).toBe(true)
  })

  test('property: short lines are untouched, long ones cut to the limit plus a marker', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ maxLength: 60 }).map((s) => s.replace(/[\r\n]/g, '')),
          {
            maxLength: 20,
          },
        ),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        (lines, max, eol) => {
          const { text, cut, removed } = cutLongLines(lines.join(eol), max)
          const out = text.split(eol)
          expect(countLines(text)).toBe(countLines(lines.join(eol)))
          expect(out).toHaveLength(Math.max(lines.length, 1))
          let expectedCut = 0
          let kept = 0
          lines.forEach((line, i) => {
            if (line.length <= max) expect(out[i]).toBe(line)
            else {
              expectedCut++
              kept += out[i]!.indexOf(' [… line cut:')
              expect(out[i]!.length).toBeLessThanOrEqual(max + lineCutMarker(line.length).length)
              expect(line.startsWith(out[i]!.slice(0, max - 1))).toBe(true)
              expect(out[i]).toContain('[… line cut:')
            }
          })
          expect(cut).toBe(expectedCut)
          // what was removed is exactly what the cut lines lost (the markers not counted)
          const long = lines.filter((l) => l.length > max)
          expect(removed).toBe(long.reduce((n, l) => n + l.length, 0) - kept)
        },
      ),
      { numRuns: 500 },
    )
  })
})
