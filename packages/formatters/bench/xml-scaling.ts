/**
 * `XmlStreamParser` scaling, 10 MB against 1 MB of the same realistic transcript, in CPU time
 * (`cpuNow`: user + system of the process), printed per run so the goal "≤ 11× in every run"
 * can be read off. Run from the package:
 *
 *   node --import tsx bench/xml-scaling.ts [runs=5] [chunk sizes=16]
 *
 * Each run times the 1 MB and the 10 MB input 5 times each, interleaved (so both see the same
 * load of a shared machine), and divides the minimums: the least-disturbed time of each. (A
 * forced collection before each pass would bill its concurrent sweeping to the pass.)
 */
import { cpuNow, realisticTranscript, streamAll } from './transcript.js'

const MB = 1024 * 1024
const runs = Number(process.argv[2] ?? 5)
const sizes = (process.argv[3] ?? '16').split(',').map(Number)

/** CPU time of one pass. */
function once(text: string, size: number): number {
  const t0 = cpuNow()
  streamAll(text, size)
  return cpuNow() - t0
}

const one = realisticTranscript(MB)
const ten = realisticTranscript(10 * MB)
for (const size of sizes) {
  const ratios: number[] = []
  once(one, size)
  once(ten, size)
  for (let run = 1; run <= runs; run++) {
    let a = Number.POSITIVE_INFINITY
    let b = Number.POSITIVE_INFINITY
    for (let i = 0; i < 5; i++) {
      a = Math.min(a, once(one, size))
      b = Math.min(b, once(ten, size))
    }
    ratios.push(b / a)
    console.log(
      `${size}-char chunks, run ${run}: 1 MB ${a.toFixed(1)} ms, 10 MB ${b.toFixed(1)} ms, ratio ${(b / a).toFixed(2)}×`,
    )
  }
  console.log(`${size}-char chunks: max ratio ${Math.max(...ratios).toFixed(2)}× (goal ≤ 11×)`)
}
