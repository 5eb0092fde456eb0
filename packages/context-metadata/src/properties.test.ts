import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { analyzeContext } from './analyze-context.js'
import { countLines } from './lines.js'
import { CONTEXT_FORMATS } from './types.js'

/** Strings rich in the characters detection cares about. */
const tricky = fc.string({
  unit: fc.constantFrom(
    '{',
    '}',
    '[',
    ']',
    '"',
    ',',
    ';',
    '\t',
    '|',
    '\n',
    '\r',
    '\\',
    ':',
    '#',
    '<',
    '>',
    ' ',
    'a',
    '1',
    '\uFEFF',
    '\u2028',
    '\uD800',
    '\uDC00',
    '😀',
    '\u0000',
    'sep=;',
    '```',
    '- ',
    '<?xml ',
  ),
  maxLength: 120,
})

describe('analyzeContext invariants', () => {
  test('property: never throws for arbitrary strings and file names; output is consistent', () => {
    fc.assert(
      fc.property(
        fc.oneof(anyCodePoints({ maxLength: 300 }), tricky),
        fc.option(
          fc.oneof(
            fc.string({ maxLength: 30 }),
            fc.constantFrom('a.csv', 'b.json', '.md', 'x.ndjson', 'y.TSV'),
          ),
        ),
        (content, name) => {
          const meta = analyzeContext(content, name ?? undefined)
          expect(CONTEXT_FORMATS).toContain(meta.format)
          expect(meta.chars).toBe(content.length)
          expect(meta.lines).toBe(countLines(content))
          if (meta.recordCount !== undefined) {
            expect(meta.recordCount).toBeGreaterThanOrEqual(0)
            if (meta.format !== 'json-array')
              expect(meta.recordCount).toBeLessThanOrEqual(meta.lines)
          }
          if (meta.sampleRecord !== undefined)
            expect(meta.sampleRecord.length).toBeLessThanOrEqual(200)
          if (meta.fields) expect(meta.fields.length).toBeLessThanOrEqual(100)
        },
      ),
      { numRuns: 1500 },
    )
  })

  test('property: NDJSON of objects is detected, with one record per object', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })), {
          minLength: 2,
          maxLength: 20,
        }),
        fc.constantFrom('\n', '\r\n'),
        (records, eol) => {
          const text = records.map((r) => JSON.stringify(r)).join(eol) + eol
          const meta = analyzeContext(text)
          expect(meta.format).toBe('ndjson')
          expect(meta.recordCount).toBe(records.length)
          expect(meta.lines).toBe(records.length)
        },
      ),
      { numRuns: 200 },
    )
  })

  test('property: any JSON array is json-array with its length as record count', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 3 })),
        fc.constantFrom(0, 2),
        (values, indent) => {
          const meta = analyzeContext(JSON.stringify(values, null, indent), 'x.json')
          expect(meta.format).toBe('json-array')
          expect(meta.recordCount).toBe(values.length)
        },
      ),
      { numRuns: 200 },
    )
  })

  test('property: CSV written by a CSV writer is CSV with one record per row', async () => {
    const Papa = (await import('papaparse')).default
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', ' '), maxLength: 6 }),
            fc.nat(1000),
          ),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        (rows) => {
          const data = rows.map(([s, n]) => [`v${s}`, String(n), 'z'])
          const text = Papa.unparse({ fields: ['name', 'count', 'const'], data })
          const meta = analyzeContext(text, 'rows.csv')
          expect(meta.format).toBe('csv')
          expect(meta.fields).toEqual(['name', 'count', 'const'])
          expect(meta.recordCount).toBe(rows.length)
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('pathological input stays linear', () => {
  // Each of these once took seconds in a regex-based sniffer (quadratic backtracking).
  const cases: Record<string, string> = {
    'a line of [': '['.repeat(65000),
    'unclosed links': 'x ['.repeat(20000),
    'whitespace then a separator': `${' '.repeat(65000)}x\n${' '.repeat(60000)}|-`,
    'unclosed emphasis': '**a'.repeat(20000),
    'only quotes': '"'.repeat(65000),
    'unclosed objects': '{"a":'.repeat(13000),
    'unclosed tags': '<a '.repeat(20000),
  }
  test.each(Object.entries(cases))('%s', (_name, text) => {
    for (const name of [undefined, 'x.json', 'x.md', 'x.csv']) {
      const t0 = performance.now()
      const meta = analyzeContext(text + text, name)
      // generous bound: these run in a few ms; a quadratic regex takes seconds
      expect(performance.now() - t0).toBeLessThan(1000)
      expect(meta.chars).toBe(text.length * 2)
    }
  })
})
