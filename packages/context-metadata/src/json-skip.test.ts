import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chunksOf } from '../../../test-utils/chunks.js'
import { JsonShapeScanner } from './json-shape-scanner.js'
import { balancedEnd, elementRun, SKIP_DEPTH } from './json-skip.js'
import { RUN } from './run-pacer.js'

/** Scan `chunks` with native skipping on or off; the shape and where the root closed. */
function scan(chunks: string[], fastSkip: boolean) {
  const scanner = new JsonShapeScanner({ fastSkip })
  const closedAt: number[] = []
  for (const c of chunks) {
    scanner.push(c)
    closedAt.push(scanner.closedAt)
  }
  return { shape: scanner.result(), closedAt }
}

const text = fc.string({
  unit: fc.constantFrom('a', ' ', '"', '\\', '{', '}', '[', ']', ','),
  maxLength: 8,
})
/** Values with strings full of brackets, quotes and backslashes, nested deeper than a match. */
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value

/** Long arrays (runs of 64 fit), of one kind or mixed, at the root or under a key. */
const document = fc
  .tuple(
    fc.array(value, { minLength: 1, maxLength: 4 }),
    fc.integer({ min: 0, max: 300 }),
    fc.array(fc.tuple(fc.nat(), value), { maxLength: 3 }),
    fc.constantFrom('root', 'member', 'nested'),
  )
  .map(([kinds, n, odd, where]) => {
    const items: unknown[] = Array.from({ length: n }, (_, i) => kinds[i % kinds.length])
    for (const [at, v] of odd) items.splice(at % (items.length + 1), 0, v)
    if (where === 'root') return items
    if (where === 'member') return { type: 'x', items, after: [1, 2] }
    return { a: { b: { c: items } }, d: items }
  })

describe('native skipping of JSON values', () => {
  test('property: the shape scan is the same with and without native skipping, any chunking', () => {
    fc.assert(
      fc.property(
        document,
        fc.constantFrom(undefined, 1, 2, '\t'),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (doc, indent, cuts, twice) => {
          const one = JSON.stringify(doc, null, indent)
          const whole = twice ? `${one}\n${one}` : one
          const chunks = chunksOf(whole, cuts)
          expect(scan(chunks, true)).toEqual(scan(chunks, false))
          expect(scan([whole], true)).toEqual(scan([whole], false))
        },
      ),
      { numRuns: 300 },
    )
  })

  test('property: the same on arbitrary text, valid JSON or not', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', ' ', '\n', '1', 'a'),
          maxLength: 300,
        }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (s, cuts) => {
          expect(scan(chunksOf(s, cuts), true)).toEqual(scan(chunksOf(s, cuts), false))
        },
      ),
      { numRuns: 1000 },
    )
  })

  test('a match stops before a closer, a too-deep value, a cut string, and never throws', () => {
    expect(balancedEnd('{"a}":[1,{"b":"]"}]} ] tail', 0)).toBe(21)
    const deep = `${'['.repeat(SKIP_DEPTH + 1)}1${']'.repeat(SKIP_DEPTH + 1)}`
    expect(balancedEnd(`x${deep}`, 0)).toBe(1)
    expect(balancedEnd(`x${'['.repeat(SKIP_DEPTH)}1${']'.repeat(SKIP_DEPTH)}]`, 0)).toBe(
      2 + 2 * SKIP_DEPTH,
    )
    expect(balancedEnd('ab "unterminated \\" [', 0)).toBe(3)
    expect(balancedEnd('"a\\\\" ]', 0)).toBe(6)
    const huge = `[${'[1,"x"],'.repeat(400_000)}[]]`
    expect(balancedEnd(huge, 1)).toBeGreaterThan(0)
  })

  test('runs of elements: 64, else 8, else none; at most a window of characters read', () => {
    const objects = '{"a":[1,{"b":"}"}]},'.repeat(70)
    const big = 1 << 20
    expect(elementRun(objects, 0, 'object', big)).toEqual({ count: RUN, end: 64 * 20 })
    expect(elementRun(objects, 64 * 20, 'object', big)).toEqual({ count: 0, end: 64 * 20 })
    expect(elementRun(objects.slice(0, 10 * 20), 0, 'object', big)).toEqual({
      count: 8,
      end: 8 * 20,
    })
    expect(elementRun(objects, 0, 'array', big)).toEqual({ count: 0, end: 0 })
    expect(elementRun(objects, 20, 'object', 64 * 20 - 1)).toEqual({ count: 8, end: 20 + 8 * 20 })
    expect(elementRun(` ${'[1, [2]] ,\n'.repeat(64)}`, 0, 'array', big).count).toBe(RUN)
    expect(elementRun('"a\\"b", '.repeat(64), 0, 'string', big).count).toBe(RUN)
    expect(elementRun('-1.5e3 , '.repeat(64), 0, 'number', big).count).toBe(RUN)
    expect(elementRun('1, true, '.repeat(64), 0, 'number', big).count).toBe(0)
  })
})
