import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chunksOf } from '../../../test-utils/chunks.js'
import { referenceCsvCount } from './csv-reference.js'
import { CsvRecordCounter } from './record-counters.js'

function count(
  chunks: string[],
  delimiter: string,
  expected?: number,
  skip?: number,
): { records: number; ragged: number } {
  const counter = new CsvRecordCounter(delimiter, {
    ...(expected !== undefined ? { expectedFields: expected } : {}),
    ...(skip !== undefined ? { skipRecords: skip } : {}),
  })
  for (const c of chunks) counter.push(c)
  return { records: counter.result(), ragged: counter.raggedRows() }
}

/** A cell as a CSV writer would put it: plain, or quoted with `""`, delimiters and line breaks. */
const cell = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '\uFEFF'), maxLength: 6 }),
  fc
    .string({ unit: fc.constantFrom('a', ',', ';', '\t', '"', '\n', '\r\n', ' '), maxLength: 6 })
    .map((v) => `"${v.replaceAll('"', '""')}"`),
)

/** Cells the run patterns must refuse, though the rules read them: stray and trailing quotes. */
const oddCell = fc.constantFrom('"ab"x', ' "a"', 'a"b', '"', '""', '"a""', '"x\ny"z', '\uFEFF"q"')

/**
 * Long runs of well-formed rows of `width` cells (so the 64-record patterns match), with a few
 * odd rows put anywhere: ragged, blank, whitespace-only, or holding odd cells.
 */
function csvText(width: number) {
  const good = fc.array(cell, { minLength: width, maxLength: width })
  const odd = fc.oneof(
    fc.array(cell, { minLength: 1, maxLength: width + 2 }),
    fc.constantFrom<string[]>([''], ['  ']),
    fc.array(fc.oneof(cell, oddCell), { minLength: width, maxLength: width }),
  )
  return fc
    .tuple(
      fc.array(good, { minLength: 60, maxLength: 400 }),
      fc.array(fc.tuple(fc.nat(), odd), { maxLength: 4 }),
      fc.constantFrom(',', ';', '\t', '|'),
      fc.constantFrom('\n', '\r\n', '\r'),
      fc.boolean(),
    )
    .map(([rows, odds, delimiter, newline, trailing]) => {
      for (const [at, row] of odds) rows.splice(at % (rows.length + 1), 0, row)
      return {
        delimiter,
        text: rows.map((r) => r.join(delimiter)).join(newline) + (trailing ? newline : ''),
      }
    })
}

describe('CsvRecordCounter against the character-by-character rules', () => {
  test('property: arbitrary text, any delimiter (even a quote, a line break or none), any chunking', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('a', ' ', ',', ';', '\t', '"', '\n', '\r', '\uFEFF', 'é'),
          maxLength: 80,
        }),
        fc.constantFrom(',', ';', '\t', '"', '\n', '|', ''),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 2 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, delimiter, expected, skip, cuts) => {
          const want = referenceCsvCount(text, delimiter, expected, skip)
          expect(count([text], delimiter, expected, skip)).toEqual(want)
          expect(count(chunksOf(text, cuts), delimiter, expected, skip)).toEqual(want)
        },
      ),
      { numRuns: 1500 },
    )
  })

  test('property: long, mostly well-formed files (runs of 64 records, ragged rows between)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 5 })
          .chain((width) =>
            fc.tuple(fc.constant(width), csvText(width), fc.array(fc.nat(), { maxLength: 8 })),
          ),
        ([width, { text, delimiter }, cuts]) => {
          const want = referenceCsvCount(text, delimiter, width, 1)
          expect(count([text], delimiter, width, 1)).toEqual(want)
          expect(count(chunksOf(text, cuts), delimiter, width, 1)).toEqual(want)
        },
      ),
      { numRuns: 200 },
    )
  })

  test('one ragged row among thousands of well-formed ones, and a file where every row is ragged', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `${i},"name ${i}","a ""b""\nc",${i % 7}`)
    rows[2345] = '2345,short'
    const text = `id,name,note,n\n${rows.join('\n')}\n`
    expect(count([text], ',', 4, 1)).toEqual({ records: 5001, ragged: 1 })
    expect(count(chunksOf(text, [70_001, 70_002, 150_000]), ',', 4, 1)).toEqual({
      records: 5001,
      ragged: 1,
    })
    const allRagged = `a,b,c\n${'1,2\n'.repeat(3000)}`
    expect(count([allRagged], ',', 3, 1)).toEqual({ records: 3001, ragged: 3000 })
  })

  test('records across the 64 KiB view a run try reads, and a field longer than it', () => {
    const rows = Array.from(
      { length: 6000 },
      (_, i) => `${i},"${'w'.repeat(i % 97)}",${'x'.repeat((i * 7) % 151)}`,
    )
    rows[3000] = `3000,"${'a""b\r\n'.repeat(40_000)}",end`
    rows[4500] = '4500,ragged'
    for (const newline of ['\n', '\r\n']) {
      const text = `id,a,b${newline}${rows.join(newline)}${newline}`
      const want = referenceCsvCount(text, ',', 3, 1)
      expect(want).toEqual({ records: 6001, ragged: 1 })
      expect(count([text], ',', 3, 1)).toEqual(want)
      expect(count(chunksOf(text, [65_536, 65_537, 400_000, 900_001]), ',', 3, 1)).toEqual(want)
    }
  })

  test('an unterminated quoted field over megabytes neither throws nor loses the count', () => {
    const text = `a,b\n1,2\n3,"${'x\n'.repeat(1_000_000)}`
    expect(count([text], ',', 2, 1)).toEqual(referenceCsvCount(text, ',', 2, 1))
    const escapes = `a,b\n1,"${'""x'.repeat(700_000)}`
    expect(count([escapes], ',', 2, 1)).toEqual(referenceCsvCount(escapes, ',', 2, 1))
  })
})
