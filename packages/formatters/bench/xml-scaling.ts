/**
 * `XmlStreamParser` scaling, 10 MB against 1 MB of the same realistic transcript, in CPU time
 * (`cpuNow`: user + system of the process), printed per run so the goal "≤ 11× in every run"
 * can be read off. Run from the package:
 *
 *   node --import tsx bench/xml-scaling.ts [runs=5] [chunk sizes=16]
 *
 * Each run times the 1 MB and the 10 MB input 5 times each, interleaved (so both see the same
 * load of a shared machine), and divides the minimums: the least-disturbed time of each. (A
 * forced collection before each pass would bill its concurrent sweeping to the pass.) On a busy
 * machine the minimum favours the short input (a quiet 15 ms window is easier to find than a
 * quiet 150 ms one), so each run also prints the ratio of the medians, and the collector's
 * pauses during the passes (wall-clock time, from `perf_hooks`). The end prints the least and
 * greatest of both ratios over the runs.
 */
import { PerformanceObserver } from 'node:perf_hooks'
import { cpuNow, realisticTranscript, streamAll } from './transcript.js'

const MB = 1024 * 1024
const runs = Math.max(1, Number(process.argv[2] ?? 5))
const sizes = (process.argv[3] ?? '16').split(',').map(Number)

/** Collections: start (on the `performance.now()` clock) and pause, in ms. */
const collections: Array<{ start: number; ms: number }> = []
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) collections.push({ start: e.startTime, ms: e.duration })
})
observer.observe({ entryTypes: ['gc'] })

interface Pass {
  cpu: number
  start: number
  end: number
}

/** CPU time of one pass, and when it ran. */
function once(text: string, size: number): Pass {
  const start = performance.now()
  const t0 = cpuNow()
  streamAll(text, size)
  return { cpu: cpuNow() - t0, start, end: performance.now() }
}

/** Collections that started during `passes`, per pass (entries arrive late: wait for them). */
async function gcOf(passes: readonly Pass[]): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 50))
  let count = 0
  let ms = 0
  for (const c of collections) {
    if (passes.some((p) => c.start >= p.start && c.start < p.end)) {
      count++
      ms += c.ms
    }
  }
  return `${(count / passes.length).toFixed(1)} GCs ${(ms / passes.length).toFixed(1)} ms`
}

/** Each size 5 times, interleaved: the least and the median CPU time of each, and the GC pauses. */
async function run(one: string, ten: string, size: number) {
  const a: Pass[] = []
  const b: Pass[] = []
  for (let i = 0; i < 5; i++) {
    a.push(once(one, size))
    b.push(once(ten, size))
  }
  const cpu = (xs: Pass[]) => xs.map((x) => x.cpu).sort((x, y) => x - y)
  const gc = `GC per pass: 1 MB ${await gcOf(a)}, 10 MB ${await gcOf(b)}`
  collections.length = 0
  return { a: cpu(a), b: cpu(b), gc }
}

const one = realisticTranscript(MB)
const ten = realisticTranscript(10 * MB)
for (const size of sizes) {
  const ratios: number[] = []
  const medianRatios: number[] = []
  once(one, size)
  once(ten, size)
  for (let r = 1; r <= runs; r++) {
    const { a, b, gc } = await run(one, ten, size)
    const ratio = b[0]! / a[0]!
    const medianRatio = b[2]! / a[2]!
    ratios.push(ratio)
    medianRatios.push(medianRatio)
    console.log(
      `${size}-char chunks, run ${r}: 1 MB ${a[0]!.toFixed(1)} ms, 10 MB ${b[0]!.toFixed(1)} ms, ratio ${ratio.toFixed(2)}× ` +
        `(of medians ${medianRatio.toFixed(2)}×; ${gc})`,
    )
  }
  const range = (xs: number[]) =>
    `min ${Math.min(...xs).toFixed(2)}×, max ${Math.max(...xs).toFixed(2)}×`
  console.log(
    `${size}-char chunks over ${runs} runs: ratio ${range(ratios)} (goal ≤ 11×); of medians ${range(medianRatios)}`,
  )
}
observer.disconnect()
