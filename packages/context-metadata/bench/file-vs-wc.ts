/**
 * `analyzeFile` on a large generated NDJSON file beside two floors, from one process:
 *
 * - `wc -l` (a child process: the disk-speed floor for counting lines),
 * - Node reading the file in 1 MiB chunks, decoding each to a string and counting `\n` with
 *   `indexOf` (what a text-based analyzer cannot beat),
 * - `analyzeFile` itself.
 *
 * Each Node measure runs in a fresh `node` child (plain Node, the built `dist/`), which reports
 * its wall-clock and CPU time (user + system) and its peak RSS (`process.resourceUsage().maxRSS`,
 * the whole process, module loading included). `wc -l` runs under `/usr/bin/time` for its CPU
 * time. Every measure runs `runs` times (default 3); the ratios are of medians. On a shared
 * machine the CPU-time ratio is the steadier one. Run from the package after
 * `pnpm build`:
 *
 *   node --import tsx bench/file-vs-wc.ts [--csv] [sizeMiB=1024] [runs=3] [chunkKiB…]
 *
 * With extra arguments it also times `analyzeFile` with those `chunkBytes` (KiB), e.g. `64 1024`.
 * `--csv` writes a CSV (quoted fields with line breaks, see csv-file.ts) instead of NDJSON.
 * The file goes under os.tmpdir() and is deleted at the end.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { writeCsv } from './csv-file.js'
import { writeNdjson } from './ndjson-file.js'

const MiB = 1024 * 1024
const csv = process.argv.includes('--csv')
const args = process.argv.slice(2).filter((a) => a !== '--csv')
const sizeMiB = Number(args[0] ?? 1024)
const runs = Number(args[1] ?? 3)
const chunkSizes = args.slice(2).map(Number)
const dist = pathToFileURL(
  resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/node.js'),
).href

/** Node's floor: read in 1 MiB chunks, decode, count `\n` with indexOf. */
const floorScript = `
import { open } from 'node:fs/promises'
import { StringDecoder } from 'node:string_decoder'
const fh = await open(process.argv[1])
const buf = Buffer.allocUnsafe(1 << 20)
const dec = new StringDecoder('utf8')
const c0 = process.cpuUsage()
const t0 = performance.now()
let lines = 0
for (;;) {
  const { bytesRead } = await fh.read(buf, 0, buf.length, null)
  if (bytesRead === 0) break
  const s = dec.write(buf.subarray(0, bytesRead))
  for (let i = s.indexOf('\\n'); i !== -1; i = s.indexOf('\\n', i + 1)) lines++
}
const ms = performance.now() - t0
const c = process.cpuUsage(c0)
await fh.close()
console.log(JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, rss: process.resourceUsage().maxRSS * 1024, lines }))
`

const oursScript = `
const { analyzeFile } = await import(${JSON.stringify(dist)})
const chunk = Number(process.argv[2])
const c0 = process.cpuUsage()
const t0 = performance.now()
const meta = await analyzeFile(process.argv[1], chunk > 0 ? { chunkBytes: chunk } : {})
const ms = performance.now() - t0
const c = process.cpuUsage(c0)
console.log(JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, rss: process.resourceUsage().maxRSS * 1024, lines: meta.lines, records: meta.recordCount, chars: meta.chars }))
`

interface Measure {
  ms: number
  /** CPU time (user + system) of the work, ms. */
  cpu: number
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

/** `wc -l`, under `/usr/bin/time` for its CPU time when that exists. */
function wc(path: string): Measure {
  const timed = existsSync('/usr/bin/time')
  const [cmd, args] = timed
    ? ['/usr/bin/time', ['-f', 'cpu %U %S', 'wc', '-l', path]]
    : ['wc', ['-l', path]]
  const t0 = performance.now()
  const r = spawnSync(cmd, args, { encoding: 'utf8' })
  const ms = performance.now() - t0
  if (r.status !== 0) throw new Error(`wc -l failed: ${r.stderr}`)
  const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(r.stderr)
  return {
    ms,
    cpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : Number.NaN,
    rss: 0,
    lines: Number(r.stdout.trim().split(/\s+/)[0]),
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** Prints min and median wall-clock, median CPU time, ratios to `base` and peak RSS. */
function summary(label: string, all: Measure[], base?: Measure[]): void {
  const wall = median(all.map((m) => m.ms))
  const cpu = median(all.map((m) => m.cpu))
  const min = Math.min(...all.map((m) => m.ms))
  const rss = Math.max(...all.map((m) => m.rss))
  let ratio = ''
  if (base) {
    const bw = median(base.map((m) => m.ms))
    const bc = median(base.map((m) => m.cpu))
    ratio = `  wall ${(wall / bw).toFixed(2)}× wc -l`
    if (Number.isFinite(cpu / bc)) ratio += `, CPU ${(cpu / bc).toFixed(2)}× wc -l`
  }
  const mem = rss > 0 ? `  peak RSS ${(rss / MiB).toFixed(0)} MiB` : ''
  const s = (ms: number) => (ms / 1000).toFixed(3)
  console.log(
    `${label.padEnd(34)} wall min ${s(min)} s median ${s(wall)} s, CPU median ${s(cpu)} s${ratio}${mem}`,
  )
}

const free = statfsSync(tmpdir()).bavail * statfsSync(tmpdir()).bsize
if (free < sizeMiB * MiB * 2) {
  console.log(`[file-vs-wc] skipped: less than ${2 * sizeMiB} MiB free under ${tmpdir()}`)
} else {
  const dir = mkdtempSync(join(tmpdir(), 'ctxmeta-wc-'))
  try {
    const path = join(dir, csv ? 'data.csv' : 'feed.ndjson')
    ;(csv ? writeCsv : writeNdjson)(path, sizeMiB * MiB)
    const kind = csv ? 'CSV' : 'NDJSON'
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')
    console.log(`[file-vs-wc] ${sizeMiB} MiB ${kind}, ${runs} runs each, Node ${process.version}`)
    console.log(`load average before: ${load()}`)
    wc(path) // warm the page cache
    const w = Array.from({ length: runs }, () => wc(path))
    const f = Array.from({ length: runs }, () => node(floorScript, path))
    const o = Array.from({ length: runs }, () => node(oursScript, path, '0'))
    summary('wc -l', w)
    summary('Node read + decode + indexOf', f, w)
    summary('analyzeFile', o, w)
    for (const kib of chunkSizes) {
      const c = Array.from({ length: runs }, () => node(oursScript, path, String(kib * 1024)))
      summary(`analyzeFile, chunkBytes ${kib} KiB`, c, w)
    }
    console.log(`load average after: ${load()}`)
    const lines = new Set([...w, ...f, ...o].map((m) => m.lines))
    if (lines.size !== 1) throw new Error(`line counts differ: ${[...lines].join(', ')}`)
    console.log(`lines ${[...lines][0]}, records ${o[0]?.records}, chars ${o[0]?.chars}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
