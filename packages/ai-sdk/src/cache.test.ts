import { describe, expect, test } from 'vitest'
import { runCacheScenario } from '../bench/cache-scenario.js'

describe("prompt caching inside generateText (real ai + @ai-sdk/anthropic against testkit's cache model)", () => {
  test("cache: 'auto' (the default): a 6-step run reads at least 80 % of its input from the cache", async () => {
    const figures = await runCacheScenario('auto')
    expect(figures.calls).toBe(6)
    expect(figures.maxMarkers).toBeLessThanOrEqual(4)
    expect(figures.readShare).toBeGreaterThanOrEqual(0.8)
    // the AI SDK's usage and testkit's own count agree
    expect(figures.readShare).toBeCloseTo(figures.emulatorShare, 6)
  })

  test("cache: 'off': no breakpoint of ours, nothing read", async () => {
    const figures = await runCacheScenario('off')
    expect(figures.calls).toBe(6)
    expect(figures.maxMarkers).toBe(0)
    expect(figures.read).toBe(0)
  })
})
