import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { parseSeed } from '../../../test-utils/fc-seed.js'

describe('fast-check runs with the seed of the test run (test-utils/fc-seed.ts)', () => {
  test('the global seed is FC_SEED, drawn fresh per run by the root config', () => {
    // set by vitest.config.ts for every worker (when run through the root config)
    if (process.env.FC_SEED !== undefined) {
      expect(fc.readConfigureGlobal().seed).toBe(Number(process.env.FC_SEED))
    }
  })

  test('FC_SEED is read as a 32-bit integer; anything else fails loudly', () => {
    expect(parseSeed(undefined)).toBeUndefined()
    expect(parseSeed(' ')).toBeUndefined()
    expect(parseSeed('-1459561266')).toBe(-1459561266)
    for (const bad of ['abc', '1.5', '1e20', 'NaN']) expect(() => parseSeed(bad)).toThrow('FC_SEED')
  })

  test('a failure reports its seed, and that seed replays the same counterexample', () => {
    const property = fc.property(fc.array(fc.integer()), (xs) => xs.length < 3)
    const first = fc.check(property)
    expect(first.failed).toBe(true)
    expect(fc.defaultReportMessage(first)).toContain(`seed: ${first.seed}`)
    const again = fc.check(property, { seed: first.seed })
    expect(again.counterexample).toEqual(first.counterexample)
  })
})
