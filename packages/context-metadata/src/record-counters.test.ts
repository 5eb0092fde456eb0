import fc from 'fast-check'
import Papa from 'papaparse'
import { describe, expect, test } from 'vitest'
import { chunksOf } from '../../../test-utils/chunks.js'
import { JsonRecordCounter } from './json-record-counter.js'
import { CsvRecordCounter, NonBlankLineCounter } from './record-counters.js'

function feed<T extends { push(s: string): void }>(counter: T, chunks: string[]): T {
  for (const c of chunks) counter.push(c)
  return counter
}

const cell = fc.string({
  unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r\n', ' ', ';', 'é'),
  maxLength: 8,
})
const row = fc.array(cell, { minLength: 1, maxLength: 4 }).map((cells) => ['x', ...cells])

describe('CsvRecordCounter', () => {
  test('property: counts what papaparse parses, for any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(), { maxLength: 5 }),
        (rows, newline, cuts) => {
          const text = Papa.unparse(rows, { newline, quotes: false })
          const expected = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy', delimiter: ',' })
            .data.length
          expect(feed(new CsvRecordCounter(','), [text]).result()).toBe(expected)
          expect(feed(new CsvRecordCounter(','), chunksOf(text, cuts)).result()).toBe(expected)
        },
      ),
      { numRuns: 400 },
    )
  })

  test('a quote inside an unquoted field is a literal, as in papaparse', () => {
    const text = 'id,size\n1,5" screen\n2,7" screen\n'
    expect(feed(new CsvRecordCounter(','), [text]).result()).toBe(3)
  })

  test('a doubled quote split across chunks stays escaped', () => {
    const chunks = ['a,"x"', '"\ny",b\nc,d\n']
    const parsed = Papa.parse<string[]>(chunks.join(''), { skipEmptyLines: 'greedy' }).data
    expect(parsed[0]).toEqual(['a', 'x"\ny', 'b'])
    expect(feed(new CsvRecordCounter(','), chunks).result()).toBe(parsed.length)
    expect(feed(new CsvRecordCounter(','), [chunks.join('')]).result()).toBe(2)
  })
})

describe('JsonRecordCounter', () => {
  test('property: root array element count equals JSON.parse length, pretty or not, any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 15 }),
        fc.constantFrom(0, 2, '\t'),
        fc.array(fc.nat(), { maxLength: 6 }),
        (values, indent, cuts) => {
          const text = JSON.stringify(values, null, indent)
          const n = (JSON.parse(text) as unknown[]).length
          expect(feed(new JsonRecordCounter(), [text]).counts().rootElements).toBe(n)
          expect(feed(new JsonRecordCounter(), chunksOf(text, cuts)).counts().rootElements).toBe(n)
        },
      ),
      { numRuns: 400 },
    )
  })

  test('property: arrays under a root object are counted under their keys', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ maxLength: 6 }),
          fc.oneof(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 6 }), fc.jsonValue()),
          { maxKeys: 5 },
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        (doc, cuts) => {
          const text = JSON.stringify(doc, null, 1)
          const parsed = JSON.parse(text) as Record<string, unknown>
          const expected = Object.entries(parsed)
            .filter((e): e is [string, unknown[]] => Array.isArray(e[1]))
            .map(([key, arr]) => ({ key, count: arr.length }))
          expect(feed(new JsonRecordCounter(), chunksOf(text, cuts)).counts().arrays).toEqual(
            expected,
          )
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('NonBlankLineCounter', () => {
  test('property: counts lines with content, for any chunking', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('{', '}', ' ', '\t', '\n', '\r', '\u2028'),
          maxLength: 50,
        }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (text, cuts) => {
          const expected = text
            .split(/\r\n|\n|\r/)
            .filter((l) => /[^\s]|\u2028/.test(l.replace(/[\t ]/g, ''))).length
          expect(feed(new NonBlankLineCounter(), chunksOf(text, cuts)).result()).toBe(expected)
        },
      ),
      { numRuns: 400 },
    )
  })
})
