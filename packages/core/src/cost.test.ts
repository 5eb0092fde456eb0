import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { usageCostUsd } from './cost.js'
import { BUILTIN_MODELS, MODEL_PRICES_AS_OF } from './model-table.js'
import { getModelInfo, ModelRegistry } from './models.js'
import { refreshModels } from './refresh-models.js'

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
})

describe('usageCostUsd', () => {
  test('Haiku 4.5 at $1 / $5 / $1.25 write / $0.10 read per million', () => {
    const pricing = getModelInfo('claude-haiku-4-5').pricing
    expect(pricing).toMatchObject({ input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 })
    expect(pricing?.asOf).toBe(MODEL_PRICES_AS_OF)
    expect(usageCostUsd(usage(1_000_000, 0), pricing)).toBeCloseTo(1, 10)
    expect(usageCostUsd(usage(2000, 1000, 10_000, 4000), pricing)).toBeCloseTo(
      (2000 * 1 + 1000 * 5 + 10_000 * 0.1 + 4000 * 1.25) / 1e6,
      12,
    )
  })

  test('unknown prices give undefined, never a guess', () => {
    expect(usageCostUsd(usage(10, 10), getModelInfo('qwen2.5-7b').pricing)).toBeUndefined()
    // a guessed Claude id borrows limits, not prices
    const guessed = getModelInfo('claude-haiku-9-9')
    expect(guessed.known).toBe(false)
    expect(guessed.pricing).toBeUndefined()
    // Opus 5.5's cache prices are not published on the pages read: a cache read makes it unknown
    const opus = getModelInfo('claude-opus-5-5').pricing
    expect(usageCostUsd(usage(100, 100), opus)).toBeCloseTo((100 * 4 + 100 * 20) / 1e6, 12)
    expect(usageCostUsd(usage(100, 100, 5), opus)).toBeUndefined()
    expect(usageCostUsd(usage(Number.NaN, 1), opus)).toBeUndefined()
    expect(usageCostUsd(usage(-1, 1), opus)).toBeUndefined()
  })

  test('property: cost is finite, ≥ 0 and additive over calls', () => {
    const priced = Object.values(BUILTIN_MODELS)
      .map((e) => e.pricing)
      .filter((p) => p?.cacheRead !== undefined && p.cacheWrite !== undefined)
    const count = fc.integer({ min: 0, max: 10_000_000 })
    fc.assert(
      fc.property(
        fc.constantFrom(...priced),
        fc.tuple(count, count, count, count),
        fc.tuple(count, count, count, count),
        (pricing, a, b) => {
          const ca = usageCostUsd(usage(...a), pricing)!
          const cb = usageCostUsd(usage(...b), pricing)!
          const sum = usageCostUsd(
            usage(a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]),
            pricing,
          )!
          expect(ca).toBeGreaterThanOrEqual(0)
          expect(Number.isFinite(ca)).toBe(true)
          expect(sum).toBeCloseTo(ca + cb, 6)
        },
      ),
    )
  })

  test('refreshModels keeps the family price for a dated id it registers', () => {
    const registry = new ModelRegistry()
    refreshModels(
      {
        data: [
          { id: 'claude-sonnet-5-5-20260928', max_input_tokens: 1_000_000, max_tokens: 128_000 },
        ],
      },
      { registry },
    )
    const info = registry.get('claude-sonnet-5-5-20260928')
    expect(info.known).toBe(true)
    expect(info.pricing).toMatchObject({ input: 2, output: 10, cacheRead: 0.2 })
  })
})
