/**
 * `analyzeFile` on a large generated NDJSON file beside two floors, from one process:
 *
 * - `wc -l` (a child process: the disk-speed floor for counting lines),
 * - Node reading the file in 1 MiB chunks, decoding each to a string and counting `\n` with
 *   `indexOf` (what a text-based analyzer cannot beat),
 * - `analyzeFile` itself.
 *
 * Each Node measure runs in a fresh `node` child (plain Node, the built `dist/`), which reports
 * its time and its peak RSS (`process.resourceUsage().maxRSS`, the whole process). Every measure
 * runs `runs` times (default 3); min and median are printed. Run from the package after
 * `pnpm build`:
 *
 *   node --import tsx bench/file-vs-wc.ts [sizeMiB=1024] [runs=3] [highWaterMarkKiB…]
 *
 * With extra arguments it also times `analyzeFile` with those `chunkBytes` (KiB), e.g. `64 1024`.
 * The file goes under os.tmpdir() and is deleted at the end.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const MiB = 1024 * 1024
const sizeMiB = Number(process.argv[2] ?? 1024)
const runs = Number(process.argv[3] ?? 3)
const chunkSizes = process.argv.slice(4).map(Number)
const dist = pathToFileURL(
  resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/node.js'),
).href

/** ~`size` bytes of NDJSON: a 1 MiB block of distinct records (with non-ASCII text), repeated. */
function writeNdjson(path: string, size: number): void {
  const lines: string[] = []
  let n = 0
  for (let i = 0; n < MiB; i++) {
    const line = JSON.stringify({
      id: i,
      author: `did:plc:user${i % 997}`,
      text: `Post ${i}: Arsenal win ${i % 5}-${i % 3}, "what a game" é 😀`,
      profile: { name: `User ${i % 997}` },
    })
    lines.push(line)
    n += Buffer.byteLength(line) + 1
  }
  const block = Buffer.from(`${lines.join('\n')}\n`)
  const fd = openSync(path, 'w')
  try {
    for (let written = 0; written < size; written += block.length) writeSync(fd, block)
  } finally {
    closeSync(fd)
  }
}

/** Node's floor: read in 1 MiB chunks, decode, count `\n` with indexOf. */
const floorScript = `
import { open } from 'node:fs/promises'
import { StringDecoder } from 'node:string_decoder'
const fh = await open(process.argv[1])
const buf = Buffer.allocUnsafe(1 << 20)
const dec = new StringDecoder('utf8')
const t0 = performance.now()
let lines = 0
for (;;) {
  const { bytesRead } = await fh.read(buf, 0, buf.length, null)
  if (bytesRead === 0) break
  const s = dec.write(buf.subarray(0, bytesRead))
  for (let i = s.indexOf('\\n'); i !== -1; i = s.indexOf('\\n', i + 1)) lines++
}
const ms = performance.now() - t0
await fh.close()
console.log(JSON.stringify({ ms, rss: process.resourceUsage().maxRSS * 1024, lines }))
`

const oursScript = `
const { analyzeFile } = await import(${JSON.stringify(dist)})
const chunk = Number(process.argv[2])
const t0 = performance.now()
const meta = await analyzeFile(process.argv[1], chunk > 0 ? { chunkBytes: chunk } : {})
const ms = performance.now() - t0
console.log(JSON.stringify({ ms, rss: process.resourceUsage().maxRSS * 1024, lines: meta.lines, records: meta.recordCount, chars: meta.chars }))
`

interface Measure {
  ms: number
  rss: number
  lines: number
  records?: number
  chars?: number
}

function node(script: string, ...args: string[]): Measure {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, ...args], {
    encoding: 'utf8',
  })
  return JSON.parse(out) as Measure
}

function wc(path: string): Measure {
  const t0 = performance.now()
  const out = execFileSync('wc', ['-l', path], { encoding: 'utf8' })
  return { ms: performance.now() - t0, rss: 0, lines: Number(out.trim().split(/\s+/)[0]) }
}

function summary(label: string, all: Measure[], base?: number): number {
  const times = all.map((m) => m.ms).sort((a, b) => a - b)
  const min = times[0] ?? 0
  const median = times[Math.floor(times.length / 2)] ?? 0
  const rss = Math.max(...all.map((m) => m.rss))
  const ratio = base ? `  ${(median / base).toFixed(2)}× wc -l` : ''
  const mem = rss > 0 ? `  peak RSS ${(rss / MiB).toFixed(0)} MiB` : ''
  console.log(
    `${label.padEnd(34)} min ${(min / 1000).toFixed(3)} s  median ${(median / 1000).toFixed(3)} s${ratio}${mem}`,
  )
  return median
}

const free = statfsSync(tmpdir()).bavail * statfsSync(tmpdir()).bsize
if (free < sizeMiB * MiB * 2) {
  console.log(`[file-vs-wc] skipped: less than ${2 * sizeMiB} MiB free under ${tmpdir()}`)
} else {
  const dir = mkdtempSync(join(tmpdir(), 'ctxmeta-wc-'))
  try {
    const path = join(dir, 'feed.ndjson')
    writeNdjson(path, sizeMiB * MiB)
    console.log(`[file-vs-wc] ${sizeMiB} MiB NDJSON, ${runs} runs each, Node ${process.version}`)
    wc(path) // warm the page cache
    const w = Array.from({ length: runs }, () => wc(path))
    const f = Array.from({ length: runs }, () => node(floorScript, path))
    const o = Array.from({ length: runs }, () => node(oursScript, path, '0'))
    const base = summary('wc -l', w)
    summary('Node read + decode + indexOf', f, base)
    summary('analyzeFile', o, base)
    for (const kib of chunkSizes) {
      const c = Array.from({ length: runs }, () => node(oursScript, path, String(kib * 1024)))
      summary(`analyzeFile, chunkBytes ${kib} KiB`, c, base)
    }
    const lines = new Set([...w, ...f, ...o].map((m) => m.lines))
    if (lines.size !== 1) throw new Error(`line counts differ: ${[...lines].join(', ')}`)
    console.log(`lines ${[...lines][0]}, records ${o[0]?.records}, chars ${o[0]?.chars}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
