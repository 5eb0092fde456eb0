import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, rm, stat } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { sessionHeader } from '@contextkit/core/store'
import { afterAll, bench, describe } from 'vitest'

// Issue 44 item 2: a JSONL session of any size loads; a 2 GB one in memory that does not grow
// with the file. Sessions of 64 MB, 512 MB and 2 GB (16 KiB messages, a compaction 20 entries
// from the end) are read in a fresh process per run (session-size-child.mjs): `loadTail` (what a
// run loads), `stream` (the whole history, entry by entry) and, up to 512 MB, `load` (every
// entry held: it grows with the file by design). Printed: the growth of the resident set (peak)
// and of the V8 heap over what they were before the read, median and minimum of RUNS runs, and
// the load average before and after (a shared 2-core machine).

const RUNS = 3
const MB = 1_000_000
const SIZES = [64 * MB, 512 * MB, 2_000 * MB]
const dir = join(tmpdir(), `ck-session-size-${process.pid}`)
const child = fileURLToPath(new URL('./session-size-child.mjs', import.meta.url))
const run = promisify(execFile)
const TS = '2026-01-01T00:00:00.000Z'

/** Write `<dir>/<id>.jsonl` of about `bytes` bytes (one text buffer written into every line). */
async function writeSession(id: string, bytes: number): Promise<number> {
  const out = createWriteStream(join(dir, `${id}.jsonl`))
  const text = Buffer.alloc(16 * 1024, 'x')
  out.write(`${JSON.stringify(sessionHeader(id, new Date(TS)))}\n`)
  const count = Math.ceil(bytes / (text.length + 150))
  for (let n = 0; n < count; n++) {
    if (n === count - 20) {
      const compaction = { type: 'compaction', id: 'k', parentId: `m${n - 1}`, ts: TS }
      out.write(
        `${JSON.stringify({ ...compaction, summary: 'Long.', firstKeptId: `m${n - 10}` })}\n`,
      )
    }
    const role = n % 2 === 0 ? 'user' : 'assistant'
    const entry = { type: 'message', id: `m${n}`, parentId: null, ts: TS }
    const [before, after] = JSON.stringify({
      ...entry,
      message: { role, content: [{ type: 'text', text: '@' }] },
    }).split('@')
    out.write(before as string)
    out.write(text)
    if (!out.write(`${after}\n`)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'close')
  return (await stat(join(dir, `${id}.jsonl`))).size
}

interface Sample {
  entries: number
  ms: number
  rssGrowth: number
  heapGrowth: number
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const mib = (x: number) => `${(x / 1024 / 1024).toFixed(1)} MiB`
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

await mkdir(dir, { recursive: true })
afterAll(() => rm(dir, { recursive: true, force: true }))
const written = new Map<number, number>()
for (const size of SIZES) written.set(size, await writeSession(`s${size / MB}`, size))

for (const size of SIZES) {
  const id = `s${size / MB}`
  const bytes = written.get(size) ?? 0
  describe(`a ${size / MB} MB JSONL session`, () => {
    const modes = size > 512 * MB ? ['loadTail', 'stream'] : ['loadTail', 'stream', 'load']
    for (const mode of modes) {
      const samples: Sample[] = []
      const before = load()
      bench(
        `${mode} (${(bytes / MB).toFixed(0)} MB file, a fresh process per run)`,
        async () => {
          const { stdout } = await run(process.execPath, ['--expose-gc', child, dir, id, mode], {
            maxBuffer: 1024 * 1024,
          })
          samples.push(JSON.parse(stdout) as Sample)
        },
        {
          iterations: RUNS,
          time: 0,
          warmupIterations: 0,
          teardown: () => {
            if (samples.length < RUNS) return
            const of = (k: keyof Sample) => samples.map((s) => s[k])
            console.info(
              `[session size] ${(bytes / MB).toFixed(0)} MB ${mode}: ${samples[0]?.entries} entries; RSS growth median ${mib(median(of('rssGrowth')))} (min ${mib(Math.min(...of('rssGrowth')))}), heap growth median ${mib(median(of('heapGrowth')))} (min ${mib(Math.min(...of('heapGrowth')))}), wall median ${median(of('ms')).toFixed(0)} ms (min ${Math.min(...of('ms')).toFixed(0)}); load average ${before} before, ${load()} after, ${samples.length} runs`,
            )
            samples.length = 0
          },
        },
      )
    }
  })
}
