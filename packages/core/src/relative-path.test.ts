import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { inspectRelativePath } from './relative-path.js'

const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error('trap')
    },
    getPrototypeOf() {
      throw new Error('trap')
    },
  },
)

describe('inspectRelativePath never throws', () => {
  test('non-strings, a null-prototype object and a throwing proxy are not_a_string', () => {
    for (const value of [Object.create(null), hostile, Symbol('s'), 10n, null, undefined, {}, []]) {
      const found = inspectRelativePath(value)
      expect(found).toMatchObject({ ok: false, reason: 'not_a_string' })
    }
  })

  test('limits that are not an object, or not positive numbers, fall back to the defaults', () => {
    const long = 'a/'.repeat(600)
    for (const limits of [
      null,
      42,
      'x',
      Object.create(null),
      hostile,
      { maxPathBytes: Number.NaN },
    ]) {
      expect(inspectRelativePath('src/a.ts', limits as never)).toMatchObject({ ok: true })
      // the default 1024-byte cap still holds
      expect(inspectRelativePath(long, limits as never)).toMatchObject({ reason: 'path_too_long' })
    }
    expect(inspectRelativePath('abc', { maxPathBytes: 2 })).toMatchObject({
      reason: 'path_too_long',
    })
  })

  test('property: anything as path and limits gives a well-formed inspection', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (path, limits) => {
        const found = inspectRelativePath(path, limits as never)
        if (found.ok) expect(typeof found.path).toBe('string')
        else expect(typeof found.message).toBe('string')
      }),
    )
  })
})
