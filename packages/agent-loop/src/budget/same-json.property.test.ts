/**
 * `sameJson` stands in for comparing `JSON.stringify` texts (a token estimate is kept while a tool
 * call's input writes the same JSON). It may say "changed" when unsure, never "same" wrongly, and
 * it must say "same" of plain JSON data that did not change (else nothing would be kept).
 */
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { jsonSnapshot, sameJson } from './same-json.js'

const stringify = (v: unknown): string | undefined => {
  try {
    return JSON.stringify(v)
  } catch {
    return undefined
  }
}

test('property: plain JSON data is the same as its own snapshot', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      expect(sameJson(value, jsonSnapshot(value))).toBe(true)
    }),
    { numRuns: 500 },
  )
})

test('property: "same" only when JSON.stringify writes the very same text', () => {
  fc.assert(
    fc.property(
      fc.anything({
        withDate: true,
        withMap: true,
        withSet: true,
        withBigInt: true,
        withNullPrototype: true,
        withBoxedValues: true,
        withSparseArray: true,
        withObjectString: true,
      }),
      fc.anything({ withDate: true, withNullPrototype: true, withSparseArray: true }),
      (before, after) => {
        const was = jsonSnapshot(before)
        if (was === undefined) return
        if (sameJson(after, was)) expect(stringify(after)).toBe(stringify(before))
        if (sameJson(before, was)) expect(stringify(before)).toBe(JSON.stringify(was))
      },
    ),
    { numRuns: 1000 },
  )
})

test('a change inside, a key order, undefined, toJSON and class instances all count as changed', () => {
  const input = { path: 'a.ts', opts: { lines: [1, 2] } }
  const was = jsonSnapshot(input)
  expect(sameJson(input, was)).toBe(true)
  input.opts.lines.push(3)
  expect(sameJson(input, was)).toBe(false)
  expect(sameJson({ b: 1, a: 2 }, jsonSnapshot({ a: 2, b: 1 }))).toBe(false)
  expect(sameJson({ a: 1, b: undefined }, jsonSnapshot({ a: 1 }))).toBe(false)
  expect(sameJson({ a: 1, toJSON: () => ({ a: 1 }) }, jsonSnapshot({ a: 1 }))).toBe(false)
  expect(sameJson(new Date(0), jsonSnapshot(new Date(0)))).toBe(false)
  // biome-ignore lint/suspicious/noSparseArray: a hole is what this line is about
  expect(sameJson([1, , 3], jsonSnapshot([1, null, 3]))).toBe(false)
  expect(sameJson(Number.NaN, jsonSnapshot(null))).toBe(false)
  expect(jsonSnapshot({ n: 10n })).toBeUndefined()
})
