import { ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { fenceCode, inlineCode, languageFor, longestRun } from './fence.js'

describe('languageFor', () => {
  test.each([
    ['src/App.jsx', 'jsx'],
    ['api/models.py', 'python'],
    ['x/Y.TSX', 'tsx'],
    ['a.d.ts', 'typescript'],
    ['Dockerfile', 'dockerfile'],
    ['.bashrc', ''],
    ['README', ''],
    ['data.unknownext', ''],
  ])('%s → %j', (p, lang) => {
    expect(languageFor(p)).toBe(lang)
  })
})

describe('fenceCode', () => {
  test('uses three backticks normally and a longer fence when the text has backtick runs', () => {
    expect(fenceCode('x = 1', 'python')).toBe('```python\nx = 1\n```')
    const md = 'Example:\n````ts\ncode\n````\n'
    const fenced = fenceCode(md, 'markdown')
    expect(fenced.startsWith('`````markdown\n')).toBe(true)
    expect(fenced.endsWith('\n`````')).toBe(true)
  })

  test('property: the content can never close the fence', () => {
    const text = fc
      .array(fc.constantFrom('`', '``', '```', '````', 'a', '\n', ' ', '~~~'), { maxLength: 40 })
      .map((a) => a.join(''))
    fc.assert(
      fc.property(text, (t) => {
        const fenced = fenceCode(t, 'md')
        const fenceLen = fenced.indexOf('md')
        expect(fenceLen).toBeGreaterThan(longestRun(t, '`'))
        expect(fenceLen).toBeGreaterThanOrEqual(3)
        // Body is recovered exactly (with a final newline added when missing).
        const body = fenced.slice(fenceLen + 3, fenced.length - fenceLen)
        expect(body).toBe(t.length === 0 || t.endsWith('\n') ? t : `${t}\n`)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('inlineCode', () => {
  test('survives backticks', () => {
    expect(inlineCode('src/a.ts')).toBe('`src/a.ts`')
    expect(inlineCode('a`b')).toBe('``a`b``')
    expect(inlineCode('`x')).toBe('`` `x ``')
  })
})

test('longestRun refuses a char that is not one UTF-16 unit with a typed error (no hang)', () => {
  for (const char of ['', 'bc', '``']) {
    expect(() => longestRun('a', char)).toThrow(ValidationError)
    expect(() => longestRun('', char)).toThrow(/longestRun: char must be a single UTF-16 unit/)
  }
  expect(() => longestRun(null as never, '`')).toThrow(/longestRun: text must be a string/)
  expect(longestRun('a``b```', '`')).toBe(3)
})
