#!/usr/bin/env node
// One measurement of bench/session-size.bench.ts, in a fresh process: read the session file
// `<dir>/<id>.jsonl` with `load`, `loadTail` or `stream` (the built package) and print, as JSON,
// how much the resident set and the V8 heap grew over what they were just before the read (the
// heap sampled every 2 ms and at each entry; the resident set as the process's peak).
//
//   node --expose-gc packages/store-files/bench/session-size-child.mjs DIR ID MODE
import { jsonlSessionStore } from '@contextkit/store-files'

const [dir, id, mode] = process.argv.slice(2)
const store = jsonlSessionStore(dir)
globalThis.gc?.()
const base = process.memoryUsage()
let heapPeak = base.heapUsed
const sample = () => {
  const used = process.memoryUsage().heapUsed
  if (used > heapPeak) heapPeak = used
}
const timer = setInterval(sample, 2)
const start = performance.now()
let entries = 0
if (mode === 'stream') {
  for await (const _ of store.stream(id)) if (++entries % 256 === 0) sample()
} else {
  entries = (await store[mode](id)).entries.length
  sample()
}
clearInterval(timer)
const ms = performance.now() - start
const rssPeak = process.resourceUsage().maxRSS * 1024
console.log(
  JSON.stringify({
    entries,
    ms,
    rssGrowth: rssPeak - base.rss,
    heapGrowth: heapPeak - base.heapUsed,
  }),
)
