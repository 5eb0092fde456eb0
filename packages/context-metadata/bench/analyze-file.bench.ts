/**
 * analyzeFile on generated files: NDJSON of 100 MB and 1 GB, and 1 GB of CSV with quoted
 * newlines and of a pretty-printed JSON array (the formats whose counters use native runs):
 * time and peak RSS. The files are written under os.tmpdir() and deleted afterwards; with less
 * than 8 GB free the suite is skipped with a note.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bench, describe } from 'vitest'
import { analyzeFile } from '../src/node.js'
import { csvQuotedNewlines, prettyJsonArray } from './fixtures.js'
import { writeNdjson } from './ndjson-file.js'

const MB = 1024 * 1024
const GB = 1024 * MB

function freeBytes(): number {
  const s = statfsSync(tmpdir())
  return s.bavail * s.bsize
}

const enough = freeBytes() >= 8 * GB
if (!enough) {
  console.log(`[analyze-file.bench] skipped: less than 8 GB free under ${tmpdir()}`)
}

/** Write ~`size` bytes: `head`, then a 1 MiB `block` repeated with `separator`, then `tail`. */
function writeRepeated(
  path: string,
  size: number,
  head: string,
  block: string,
  separator: string,
  tail: string,
): void {
  const first = Buffer.from(head + block)
  const next = Buffer.from(separator + block)
  const fd = openSync(path, 'w')
  try {
    writeSync(fd, first)
    for (let written = first.length; written < size; written += next.length) writeSync(fd, next)
    writeSync(fd, tail)
  } finally {
    closeSync(fd)
  }
}

/** 1 GB of CSV records like bench/fixtures.ts (a quoted newline every third record). */
function writeCsv(path: string, size: number): void {
  const [header, ...rows] = csvQuotedNewlines(MB).trimEnd().split('\n')
  writeRepeated(path, size, `${header}\n`, rows.join('\n'), '\n', '\n')
}

/** 1 GB of one pretty-printed JSON array of records like bench/fixtures.ts. */
function writeJsonArray(path: string, size: number): void {
  const inner = prettyJsonArray(MB).slice(1, -2)
  writeRepeated(path, size, '[', inner, ',', '\n]')
}

/** Run analyzeFile while sampling RSS every 5 ms; print time, throughput and peak RSS. */
async function measure(label: string, path: string): Promise<void> {
  globalThis.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 5)
  const t0 = performance.now()
  const meta = await analyzeFile(path)
  const ms = performance.now() - t0
  clearInterval(timer)
  peak = Math.max(peak, process.memoryUsage().rss)
  const mbps = (meta.bytes ?? 0) / MB / (ms / 1000)
  console.log(
    `[analyze-file.bench] ${label}: ${(ms / 1000).toFixed(2)} s, ${mbps.toFixed(0)} MB/s, ` +
      `${meta.recordCount} records, RSS before ${(before / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB ` +
      `(+${((peak - before) / MB).toFixed(0)} MB)`,
  )
}

const once = { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 }

// vitest does not run beforeAll/afterAll around benches, so files are made in a bench `setup`
// hook (not timed) and removed after the last bench, and on exit as a safety net.
let dir = ''
const small = () => join(dir, 'feed-100mb.ndjson')
const large = () => join(dir, 'feed-1gb.ndjson')
const csv = () => join(dir, 'rows-1gb.csv')
const json = () => join(dir, 'records-1gb.json')
function cleanup(): void {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = ''
}
function prepare(): void {
  if (dir) return
  dir = mkdtempSync(join(tmpdir(), 'ctxmeta-bench-'))
  process.once('exit', cleanup)
  const t0 = performance.now()
  writeNdjson(small(), 100 * MB)
  writeNdjson(large(), GB)
  writeCsv(csv(), GB)
  writeJsonArray(json(), GB)
  console.log(
    `[analyze-file.bench] generated 3.1 GB in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
}

describe.skipIf(!enough)('analyzeFile, streaming', () => {
  bench('100 MB NDJSON', () => measure('100 MB', small()), {
    ...once,
    iterations: 3,
    setup: prepare,
  })
  bench('1 GB NDJSON', () => measure('1 GB', large()), { ...once, setup: prepare })
  bench('1 GB CSV, quoted newlines', () => measure('1 GB CSV', csv()), {
    ...once,
    setup: prepare,
  })
  bench('1 GB pretty-printed JSON array', () => measure('1 GB JSON array', json()), {
    ...once,
    setup: prepare,
    teardown: (_task, mode) => {
      if (mode === 'run') cleanup()
    },
  })
})
