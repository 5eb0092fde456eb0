import { describe, expect, test } from 'vitest'
import { runCacheScenario } from '../../bench/cache-scenario.js'

// The figures of issue 15 as counts (no timing): the same scenario as bench/cache.bench.ts.
describe('prompt caching across a run (real SDK, anthropicProvider, testkit cache model)', () => {
  test("10 steps over a 20,000-token system prompt: 'auto' reads >= 85 % of the input of steps 2-10", async () => {
    const f = await runCacheScenario()
    expect(f.auto.readShare).toBeGreaterThanOrEqual(0.85)
    expect(f.off.readShare).toBe(0)
    expect(f.naive.readShare).toBeGreaterThan(0)
    expect(f.naive.readShare).toBeLessThan(f.auto.readShare)
    // no placement can read more than all the previous call sent: 'auto' is at that bound here,
    // and so is a top-level cache_control (what the AI SDK's request-level cacheControl sends)
    expect(f.auto.read).toBe(f.bound.read)
    expect(f.request.read).toBe(f.bound.read)
    expect(f.bound.total).toBe(f.auto.total)
    // a second run of the session, within the TTL, reads the stable prefix on its first call
    expect(f.secondRun.firstCall.step).toBe(1)
    expect(f.secondRun.firstCall.cacheRead).toBeGreaterThanOrEqual(f.secondRun.stablePrefixTokens)
    // what the runs report is what the emulator counted
    expect(f.reportedReads).toBe(f.emulatorReads)
  })
})
