/**
 * CPU time of `analyzeContext` on the benchmark inputs, for a machine shared with other work
 * (wall-clock benches then measure the load as much as the code). Run from the package:
 *
 *   node --import tsx bench/cpu-time.ts [runs] [case prefix]
 *
 * For each case: 3 warm-up calls, then `runs` (default 15) calls timed with
 * `process.cpuUsage()` (user + system of the whole process, so a concurrent GC or compiler
 * thread counts too); prints the median and the minimum, with the wall-clock median beside.
 */
import { analyzeContext } from '../src/index.js'
import {
  csvQuotedNewlines,
  longLineJsonl,
  ndjson,
  prettyJsonArray,
  topologyObject,
} from './fixtures.js'

const MB4 = 4 * 1024 * 1024
const runs = Number(process.argv[2] ?? 15)
const only = process.argv[3] ?? ''

const cases: Array<[string, () => string, string | undefined]> = [
  ['NDJSON 4 MB', () => ndjson(MB4), 'feed.ndjson'],
  ['CSV quoted newlines 4 MB', () => csvQuotedNewlines(MB4), 'data.csv'],
  ['pretty JSON array 4 MB', () => prettyJsonArray(MB4), 'data.json'],
  ['NDJSON 4 MB, no file name', () => ndjson(MB4), undefined],
  ['JSON object (TopoJSON-like) 4 MB', () => topologyObject(MB4), 'world.json'],
  ['JSONL 64 KB+ lines 4 MB, no file name', () => longLineJsonl(MB4), undefined],
]

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

for (const [label, make, fileName] of cases) {
  if (!label.startsWith(only)) continue
  const text = make()
  for (let i = 0; i < 3; i++) analyzeContext(text, fileName)
  const cpu: number[] = []
  const wall: number[] = []
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    analyzeContext(text, fileName)
    wall.push(performance.now() - t0)
    const c = process.cpuUsage(c0)
    cpu.push((c.user + c.system) / 1000)
  }
  console.log(
    `${label.padEnd(40)} CPU median ${median(cpu).toFixed(2)} ms (min ${Math.min(...cpu).toFixed(2)}), wall median ${median(wall).toFixed(2)} ms, ${runs} calls`,
  )
}
