import { statSync, truncateSync } from 'node:fs'
import { sessionMessages } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { bench, describe } from 'vitest'
import { limitHistory } from '../src/index.js'
import { benchDir, realisticEntry, realisticSession } from './session-fixtures.js'

// Issue goals: an append to a 10,000-entry session costs at most 1.5x an append to a 10-entry
// one (append is O(1) in session length); loading a 10,000-entry session takes at most 40 ms in
// full, and `loadTail` at most 5 ms when a compaction entry is near the end.
// The machine these run on is shared, so next to vitest's table the paired benchmarks print
// medians of interleaved runs (load spikes hit both sides alike) and CPU time (which waiting for
// a core does not inflate).

const dir = benchDir('sessions')
const durable = jsonlSessionStore(dir)
const fast = jsonlSessionStore(dir, { fsync: false })
await durable.append('small', realisticSession('small', 10))
await durable.append('large', realisticSession('large', 10_000))
const sizes = {
  small: statSync(durable.pathOf('small')).size,
  large: statSync(durable.pathOf('large')).size,
}

/** Append one realistic entry, then cut the file back so the session keeps its length. */
async function appendOne(store: typeof durable, id: 'small' | 'large'): Promise<void> {
  await store.append(id, [realisticEntry(20_000)])
  truncateSync(store.pathOf(id), sizes[id])
}

interface Sample {
  wall: number
  cpu: number
}
async function measure(fn: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage()
  const start = performance.now()
  await fn()
  const used = process.cpuUsage(cpu)
  return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const ms = (x: number) => `${x.toFixed(3)} ms`

/** One bench iteration appends to both sessions in turn; the teardown prints both medians. */
function pairedAppend(store: typeof durable, label: string) {
  const small: Sample[] = []
  const large: Sample[] = []
  bench(
    `${label}: 10-entry then 10,000-entry session (interleaved pair)`,
    async () => {
      small.push(await measure(() => appendOne(store, 'small')))
      large.push(await measure(() => appendOne(store, 'large')))
    },
    {
      time: 3000,
      teardown: () => {
        if (small.length < 10) return
        const [s, l] = [median(small.map((x) => x.wall)), median(large.map((x) => x.wall))]
        const [sc, lc] = [median(small.map((x) => x.cpu)), median(large.map((x) => x.cpu))]
        console.info(
          `[session append, ${label}] ${small.length} pairs; median wall ${ms(s)} (10) vs ${ms(l)} (10,000) = ${(l / s).toFixed(2)}x; median CPU ${ms(sc)} vs ${ms(lc)} = ${(lc / sc).toFixed(2)}x`,
        )
      },
    },
  )
}

describe('append one entry', () => {
  pairedAppend(durable, 'fsync on (default)')
  pairedAppend(fast, 'fsync off')
  bench('fsync on: to a 10-entry session', () => appendOne(durable, 'small'), { time: 1500 })
  bench('fsync on: to a 10,000-entry session', () => appendOne(durable, 'large'), { time: 1500 })
})

// A 10,000-entry session whose compaction entry is near the end (kept from 20 entries back).
const compacted = realisticSession('compacted', 10_000)
compacted.splice(9_991, 0, {
  type: 'compaction',
  id: 'c1',
  parentId: 'e9989',
  ts: new Date(Date.UTC(2026, 0, 2)).toISOString(),
  summary: 'The user asked for a refactor of the file reader; the loop read 3,300 files.',
  firstKeptId: 'e9970',
})
compacted.pop()
await durable.append('compacted', compacted)

/**
 * Interleaved runs of the full `load` and of `loadTail` on one session; the teardown prints the
 * medians side by side.
 */
function pairedLoad(id: 'large' | 'compacted', label: string) {
  const full: Sample[] = []
  const tail: Sample[] = []
  bench(
    `${label}: load (full) then loadTail (interleaved pair)`,
    async () => {
      full.push(await measure(() => durable.load(id)))
      tail.push(await measure(() => durable.loadTail(id)))
    },
    {
      time: 4000,
      teardown: () => {
        if (full.length < 5) return
        const wall = (xs: Sample[]) => median(xs.map((x) => x.wall))
        const cpu = (xs: Sample[]) => median(xs.map((x) => x.cpu))
        const min = (xs: Sample[]) => Math.min(...xs.map((x) => x.wall))
        console.info(
          `[session load, ${label}] ${full.length} pairs; full load median wall ${ms(wall(full))} (min ${ms(min(full))}, CPU ${ms(cpu(full))}); loadTail median wall ${ms(wall(tail))} (min ${ms(min(tail))}, CPU ${ms(cpu(tail))})`,
        )
        full.length = 0
        tail.length = 0
      },
    },
  )
}

describe(`load a 10,000-entry session (${(sizes.large / 1e6).toFixed(1)} MB)`, () => {
  pairedLoad('large', '10,000 entries, no compaction entry')
  pairedLoad('compacted', '10,000 entries, a compaction entry 10 from the end')
})

const history = sessionMessages((await durable.load('large')).entries)
describe('limitHistory (10,000 messages)', () => {
  bench('last 20 turns within 100k tokens', () => {
    limitHistory(history, { turns: 20, tokens: 100_000 })
  })
})
