import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ValidationError } from './errors.js'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js'

function nested(depth: number): unknown {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value }
  return value
}

describe('exceedsJsonDepth', () => {
  test('counts levels of arrays and objects; scalars are depth 0', () => {
    expect(exceedsJsonDepth(1, 0)).toBe(false)
    expect(exceedsJsonDepth({}, 0)).toBe(true)
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false)
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true)
  })

  test('a value 100,000 levels deep and a cycle are measured without recursion', () => {
    expect(exceedsJsonDepth(nested(100_000))).toBe(true)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(exceedsJsonDepth(cyclic)).toBe(true)
  })

  test('property: agrees with the depth a value was built with', () => {
    fc.assert(
      fc.property(fc.nat(200), fc.nat(200), (depth, max) => {
        expect(exceedsJsonDepth(nested(depth), max)).toBe(depth > max)
      }),
    )
  })

  test('a max that is not a number ≥ 0 is a ValidationError', () => {
    for (const bad of [Number.NaN, -1, '3', null, Object.create(null)]) {
      expect(() => exceedsJsonDepth({}, bad as number)).toThrow(ValidationError)
    }
  })
})
