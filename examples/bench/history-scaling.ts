// Per-call cost against the length of the history (issue 46): the loop alone, the loop with the
// four feature middlewares, each given the history as plain objects and as core's
// `sealMessages` leaves it (what a chat that seals each run's messages resends), and the AI SDK
// 7's `generateText` with none of them, over histories of 200, 1,000 and 2,000 messages with 20
// tools, in one process. The sides are run in turn, one sample each (4 runs of 10 model calls),
// so load on a shared machine hits all alike; each line prints the median and the minimum per
// model call over the samples, and how many times faster than `generateText` the median is.
//   node --import tsx bench/history-scaling.ts [samples] [sizes] [sides]
// sizes and sides comma-separated (sides: bare, full, bare-sealed, full-sealed, peer; default
// all five). Under
// `node --cpu-prof` or `--heap-prof` it profiles the same runs (one side, for a clean profile).
import { loadavg } from 'node:os'
import { sealMessages } from '@contextkit/core'
import {
  aiSdkRun,
  aiSdkTools,
  instantModel,
  toModelMessages,
} from '../../packages/agent-loop/bench/ai-sdk-peer.js'
import { instantProvider, loopInputs, middlewareWorkspace, runOnce } from './middleware-scenario.js'

const CALLS = 10
const RUNS_PER_SAMPLE = 4
const samples = Number(process.argv[2] ?? 30)
const sizes = (process.argv[3] ?? '200,1000,2000').split(',').map(Number)
const only = (process.argv[4] ?? 'bare,full,bare-sealed,full-sealed,peer').split(',')

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** Milliseconds per model call of one sample: `RUNS_PER_SAMPLE` runs of `run`. */
async function sample(run: () => Promise<void>): Promise<number> {
  const t0 = performance.now()
  for (let i = 0; i < RUNS_PER_SAMPLE; i++) await run()
  return (performance.now() - t0) / (RUNS_PER_SAMPLE * CALLS)
}

const ws = await middlewareWorkspace()
console.log(
  `load average ${load()}; ${samples} samples of ${RUNS_PER_SAMPLE} runs × ${CALLS} calls`,
)
try {
  for (const size of sizes) {
    const inputs = loopInputs(size)
    // the same history in other objects, sealed once as a chat keeping it would
    const sealed = loopInputs(size)
    sealMessages(sealed.past)
    const bare = instantProvider(CALLS)
    const full = instantProvider(CALLS)
    const bareSealed = instantProvider(CALLS)
    const fullSealed = instantProvider(CALLS)
    const peer = instantModel(CALLS)
    const peerMessages = toModelMessages([...inputs.past, inputs.question])
    const peerTools = aiSdkTools(20)
    const sides = Object.fromEntries(
      (
        [
          ['bare', 'loop alone', () => runOnce(inputs, bare, CALLS, ws.dir, [])],
          ['full', 'loop + the four', () => runOnce(inputs, full, CALLS, ws.dir, ws.middleware)],
          ['bare-sealed', 'alone, sealed', () => runOnce(sealed, bareSealed, CALLS, ws.dir, [])],
          [
            'full-sealed',
            'the four, sealed',
            () => runOnce(sealed, fullSealed, CALLS, ws.dir, ws.middleware),
          ],
          ['peer', 'AI SDK generateText', () => aiSdkRun(peer, peerMessages, peerTools, CALLS)],
        ] as const
      )
        .filter(([key]) => only.includes(key))
        .map(([, name, run]) => [name, run]),
    )
    const times: Record<string, number[]> = {}
    for (const [name, run] of Object.entries(sides)) {
      times[name] = []
      for (let i = 0; i < 3; i++) await sample(run) // warm-up: JIT, the resumption state
    }
    for (let s = 0; s < samples; s++) {
      for (const [name, run] of Object.entries(sides)) times[name]!.push(await sample(run))
    }
    const peerTimes = times['AI SDK generateText']
    const peerMedian = peerTimes ? median(peerTimes) : Number.NaN
    console.log(`${size} messages of history (load average ${load()}):`)
    for (const [name, xs] of Object.entries(times)) {
      const med = median(xs)
      const min = Math.min(...xs)
      const ahead =
        name.startsWith('AI SDK') || !peerTimes ? '' : `   ${(peerMedian / med).toFixed(1)}× ahead`
      console.log(
        `  ${name.padEnd(20)} median ${med.toFixed(3)} ms   min ${min.toFixed(3)} ms   median/min ${(med / min).toFixed(2)}${ahead}`,
      )
    }
  }
} finally {
  await ws.close()
}
