import { bench, describe } from 'vitest'
import { type PlacementFigures, runCacheScenario } from './cache-scenario.js'

// Issue 15's numbers: a 10-step tool loop over a 20,000-token stable system prompt, each step
// adding a 1,500-token tool result, through the real SDK and anthropicProvider against testkit's
// cache model; 'auto', 'off' and naive placement (one breakpoint on the system prompt) in the
// same run, then a second run of the 'auto' session within the TTL. The shares are counts, the
// same on every run (src/cache-hit-rate.test.ts asserts them); the bench times the whole scenario.
const f = await runCacheScenario()
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const row = (p: PlacementFigures) =>
  `| ${p.placement} | ${pct(p.readShare)} | ${p.read.toLocaleString('en-US')} | ${p.total.toLocaleString('en-US')} | ${pct(p.inputCost / f.off.inputCost)} |`
console.log(
  [
    '| placement | cache reads ÷ input tokens, steps 2–10 | read | all input | input cost of the run vs off |',
    '|---|---|---|---|---|',
    row(f.auto),
    row(f.naive),
    row(f.off),
    '',
    `auto, per call (input / read / written): ${f.auto.calls.map((c) => `${c.input}/${c.cacheRead}/${c.cacheWrite}`).join(', ')}`,
    `naive, per call: ${f.naive.calls.map((c) => `${c.input}/${c.cacheRead}/${c.cacheWrite}`).join(', ')}`,
    `second run, first call: read ${f.secondRun.firstCall.cacheRead}, written ${f.secondRun.firstCall.cacheWrite}, uncached ${f.secondRun.firstCall.input} (stable prefix ${f.secondRun.stablePrefixTokens}); hit rate ${pct(f.secondRun.firstCall.cacheHitRate)}`,
  ].join('\n'),
)

describe('prompt cache scenario (real SDK + testkit cache model)', () => {
  bench('4 runs of 10 calls over a 20,000-token system prompt', async () => {
    await runCacheScenario()
  })
})
