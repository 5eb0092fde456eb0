import { bench, describe } from 'vitest'
import { type PlacementFigures, runCacheScenario } from './cache-scenario.js'

// Issue 15's numbers: a 10-step tool loop over a 20,000-token stable system prompt, each step
// adding a 1,500-token tool result, through the real SDK and anthropicProvider against testkit's
// cache model; 'auto', 'off', naive placement (one breakpoint on the system prompt: the AI SDK's
// per-message marker on the system message) and request-level cache_control (the AI SDK's
// providerOptions.anthropic.cacheControl on the call) in the same run, the upper bound of reads
// (each call reads at most all the previous call sent), then a second run of the 'auto' session
// within the TTL. The shares are counts, the same on every run (src/cache-hit-rate.test.ts
// asserts them); the bench times the whole scenario.
const f = await runCacheScenario()
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const row = (p: PlacementFigures) =>
  `| ${p.placement} | ${pct(p.readShare)} | ${p.read.toLocaleString('en-US')} | ${p.total.toLocaleString('en-US')} | ${pct(p.inputCost / f.off.inputCost)} |`
console.log(
  [
    '| placement | cache reads ÷ input tokens, steps 2–10 | read | all input | input cost of the run vs off |',
    '|---|---|---|---|---|',
    row(f.auto),
    row(f.request),
    row(f.naive),
    row(f.off),
    `| upper bound: each call reads all the previous call sent | ${pct(f.bound.readShare)} | ${f.bound.read.toLocaleString('en-US')} | ${f.bound.total.toLocaleString('en-US')} | |`,
    '',
    `'auto' reads ${pct(f.auto.read / f.bound.read)} of the upper bound (${f.auto.read.toLocaleString('en-US')} of ${f.bound.read.toLocaleString('en-US')} tokens); request-level cache_control (the AI SDK's providerOptions.anthropic.cacheControl on the call) ${pct(f.request.read / f.bound.read)}; naive (a per-message marker on the system message) ${pct(f.naive.read / f.bound.read)}`,
    '',
    `auto, per call (input / read / written): ${f.auto.calls.map((c) => `${c.input}/${c.cacheRead}/${c.cacheWrite}`).join(', ')}`,
    `request-level, per call: ${f.request.calls.map((c) => `${c.input}/${c.cacheRead}/${c.cacheWrite}`).join(', ')}`,
    `naive, per call: ${f.naive.calls.map((c) => `${c.input}/${c.cacheRead}/${c.cacheWrite}`).join(', ')}`,
    `second run, first call: read ${f.secondRun.firstCall.cacheRead}, written ${f.secondRun.firstCall.cacheWrite}, uncached ${f.secondRun.firstCall.input} (stable prefix ${f.secondRun.stablePrefixTokens}); hit rate ${pct(f.secondRun.firstCall.cacheHitRate)}`,
  ].join('\n'),
)

describe('prompt cache scenario (real SDK + testkit cache model)', () => {
  bench('5 runs of 10 calls over a 20,000-token system prompt', async () => {
    await runCacheScenario()
  })
})
