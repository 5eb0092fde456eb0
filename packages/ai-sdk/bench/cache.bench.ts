import { bench, describe } from 'vitest'
import { runCacheScenario } from './cache-scenario.js'

// The README's cache figure: the share of a 6-step generateText run's input read from the cache
// (printed once per mode), and the run's time through the real AI SDK and testkit.
describe('prompt caching inside generateText (6 steps, ~4,000-token system + AGENTS.md)', () => {
  for (const mode of ['auto', 'off'] as const) {
    let printed = false
    bench(
      `cache: '${mode}'`,
      async () => {
        const f = await runCacheScenario(mode)
        if (printed) return
        printed = true
        const share = (f.readShare * 100).toFixed(1)
        console.log(
          `cache ${mode}: ${share} % read (${f.read} of ${f.input}), ≤ ${f.maxMarkers} markers`,
        )
      },
      { iterations: 3 },
    )
  }
})
