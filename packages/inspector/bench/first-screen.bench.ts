// The first screen of a 2,000-step session in Chromium (Debian's, through playwright-core): from
// opening the session's address to its newest steps on screen, with a fresh inspector each time
// (nothing cached on the server). Also the server alone: the newest window, the oldest one (read
// back through the whole trace) and the heap they leave. `pnpm bench` in this package.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsonlSessionStore } from '@contextkit/store-files'
import { afterAll, bench, describe } from 'vitest'
import { startBrowser } from '../../../test-utils/browser.js'
import { InspectorData } from '../src/inspector-data.js'
import { sessionSource } from '../src/session-source.js'
import { startInspector } from '../src/start-inspector.js'
import { jsonlTraceDirectory } from '../src/trace-reader.js'
import { writeLongSession } from './long-session.js'

const STEPS = 2000
const dir = await mkdtemp(join(tmpdir(), 'ck-inspector-bench-'))
await writeLongSession(dir, 'long', STEPS)
const sessions = jsonlSessionStore(join(dir, 'sessions'))
const traces = join(dir, 'traces')
const browser = await startBrowser()
const page = await browser.newPage()
const heapGrowth: number[] = []
const firstScreens: number[] = []

/** The median and the fastest of `ms`, for the README (vitest's table has no median). */
function report(what: string, ms: number[]): void {
  if (ms.length === 0) return
  const sorted = [...ms].sort((a, b) => a - b)
  const mid = sorted.length / 2
  const median =
    sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  console.log(
    `${what}: median ${median.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)} ms over ${ms.length} runs`,
  )
}

afterAll(async () => {
  await browser.close()
  await rm(dir, { recursive: true, force: true })
})

describe(`a ${STEPS.toLocaleString('en-US')}-step session`, () => {
  bench(
    'first screen in Chromium (open the session, newest steps shown)',
    async () => {
      const inspector = await startInspector({ sessions, traces })
      try {
        // the printed address, to the session: the token sets the cookie, the page opens
        const started = performance.now()
        await page.goto(`${inspector.url}#/s/long`)
        await page.locator(`article[data-step-index="${STEPS}"]`).waitFor()
        firstScreens.push(performance.now() - started)
        const shown = await page.locator('article.step').count()
        if (shown >= STEPS) throw new Error(`every step was loaded (${shown})`)
      } finally {
        await inspector.close()
      }
    },
    {
      iterations: 10,
      warmupIterations: 1,
      setup: () => {
        firstScreens.length = 0
      },
      teardown: () => report('first screen', firstScreens),
    },
  )

  bench(
    'server: summary and the newest 30 steps (cold)',
    async () => {
      const data = new InspectorData(sessionSource(sessions), jsonlTraceDirectory(traces))
      await data.summary('long')
      await data.steps('long', STEPS - 29, 30)
    },
    { iterations: 10, warmupIterations: 1 },
  )

  bench(
    'server: the oldest 30 steps (read back through the whole trace and session)',
    async () => {
      const data = new InspectorData(sessionSource(sessions), jsonlTraceDirectory(traces))
      const before = process.memoryUsage().heapUsed
      const page = await data.steps('long', 1, 30)
      const grown = process.memoryUsage().heapUsed - before
      if (page.steps.length !== 30) throw new Error('wrong window')
      heapGrowth.push(grown)
    },
    {
      iterations: 10,
      warmupIterations: 1,
      teardown: () => {
        if (heapGrowth.length === 0) return
        const mb = Math.max(...heapGrowth) / 2 ** 20
        console.log(
          `oldest window: heap grew at most ${mb.toFixed(1)} MiB over ${heapGrowth.length} runs`,
        )
      },
    },
  )
})
