import { bench, describe } from 'vitest'
import { analyzeContext } from '../src/index.js'
import {
  csvQuotedNewlines,
  longLineJsonl,
  ndjson,
  prettyJsonArray,
  topologyObject,
} from './fixtures.js'

const MB4 = 4 * 1024 * 1024
const nd = ndjson(MB4)
const csv = csvQuotedNewlines(MB4)
const json = prettyJsonArray(MB4)
const topo = topologyObject(MB4)
const long = longLineJsonl(MB4)

/**
 * tinybench shows no median column (and sets results after `teardown`), so each bench also
 * times its own calls and prints the median when its measured run ends.
 */
function timed(label: string, fn: () => unknown) {
  let samples: number[] = []
  return {
    fn: () => {
      const t0 = performance.now()
      fn()
      samples.push(performance.now() - t0)
    },
    options: {
      time: 2000,
      setup: () => {
        samples = []
      },
      teardown: (_task: unknown, mode?: string) => {
        if (mode !== 'run' || samples.length === 0) return
        const sorted = [...samples].sort((a, b) => a - b)
        const median = sorted[Math.floor(sorted.length / 2)]!
        console.log(
          `[analyze-context.bench] ${label}: median ${median.toFixed(2)} ms over ${sorted.length} runs`,
        )
      },
    },
  }
}

const cases = [
  timed(`NDJSON ${(nd.length / 1e6).toFixed(2)}M chars (goal <= 5 ms)`, () =>
    analyzeContext(nd, 'feed.ndjson'),
  ),
  timed(`CSV quoted newlines ${(csv.length / 1e6).toFixed(2)}M chars (goal <= 25 ms)`, () =>
    analyzeContext(csv, 'data.csv'),
  ),
  timed(`pretty JSON array ${(json.length / 1e6).toFixed(2)}M chars (goal <= 25 ms)`, () =>
    analyzeContext(json, 'data.json'),
  ),
  timed('NDJSON, no file name', () => analyzeContext(nd)),
  timed(`JSON object (TopoJSON-like) ${(topo.length / 1e6).toFixed(2)}M chars`, () =>
    analyzeContext(topo, 'world.json'),
  ),
  timed(`JSONL, lines over 64 KB, ${(long.length / 1e6).toFixed(2)}M chars, no name`, () =>
    analyzeContext(long),
  ),
]
const names = [
  'NDJSON 4 MB',
  'CSV with quoted newlines 4 MB',
  'pretty-printed JSON array 4 MB',
  'NDJSON 4 MB, no file name',
  'JSON object 4 MB (whole-text key scan)',
  'JSONL with 64 KB+ lines 4 MB, no file name',
]

describe('analyzeContext', () => {
  cases.forEach((c, i) => {
    bench(names[i]!, c.fn, c.options)
  })
})
