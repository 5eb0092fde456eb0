import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { errnoCode } from './errno.js'

describe('errnoCode', () => {
  test('the string code of a system error, else undefined', async () => {
    const { readFile } = await import('node:fs/promises')
    const error = await readFile('/nonexistent/contextkit').catch((e: unknown) => e)
    expect(errnoCode(error)).toBe('ENOENT')
    expect(errnoCode({ code: 'EEXIST' })).toBe('EEXIST')
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const code = errnoCode(value)
        expect(code === undefined || typeof code === 'string').toBe(true)
        if (typeof value !== 'object' || value === null) expect(code).toBeUndefined()
      }),
    )
    expect(errnoCode({ code: 42 })).toBeUndefined()
  })
})
