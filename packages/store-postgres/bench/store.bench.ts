import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsonlSessionStore } from '@contextkit/store-files'
import { PGlite } from '@electric-sql/pglite'
import { bench, describe } from 'vitest'
import { migrate, postgresSessionStore } from '../src/index.js'
import { turnEntries } from '../src/test-support.js'

// The same sessions through PGlite in this process (in memory, and on disk in a data
// directory) and through agent-loop's JSONL file store, on the same machine. One turn = user
// message, tool call, tool result, answer (~0.9 KB of JSON).
const tmp = (label: string) => mkdtempSync(join(tmpdir(), `ck-bench-${label}-`))
const memory = await PGlite.create()
const disk = await PGlite.create(tmp('pglite'))
await migrate(memory)
await migrate(disk)

const onMemory = postgresSessionStore(memory)
const onDisk = postgresSessionStore(disk)
const jsonl = jsonlSessionStore(tmp('jsonl'))
const jsonlNoSync = jsonlSessionStore(tmp('jsonl-nosync'), { fsync: false })
for (let i = 0; i < 250; i++) {
  await onMemory.append('load-1000', turnEntries(i))
  await jsonl.append('load-1000', turnEntries(i))
}

let turn = 0
describe('append one turn (4 entries)', () => {
  bench('PGlite in memory', () => onMemory.append('append', turnEntries(++turn)), { time: 2000 })
  bench('PGlite on disk', () => onDisk.append('append', turnEntries(++turn)), { time: 2000 })
  bench('JSONL file (fsync on)', () => jsonl.append('append', turnEntries(++turn)), {
    time: 2000,
  })
  bench('JSONL file (fsync off)', () => jsonlNoSync.append('append', turnEntries(++turn)), {
    time: 2000,
  })
})

describe('load a 1,000-entry session', () => {
  const check = (n: number) => {
    if (n !== 1000) throw new Error(`loaded ${n} entries`)
  }
  bench('PGlite in memory', async () => check((await onMemory.load('load-1000')).entries.length), {
    time: 3000,
  })
  bench('JSONL file', async () => check((await jsonl.load('load-1000')).entries.length), {
    time: 3000,
  })
})

// The same 1,000 entries and a compaction entry kept from 8 entries back, then one more turn:
// loadTail pages back by the primary key to the kept message and returns 14 entries.
for (const store of [onMemory, jsonl]) {
  await store.append('tail-1000', (await store.load('load-1000')).entries)
  await store.append('tail-1000', [
    {
      type: 'compaction',
      id: 'compaction-1',
      parentId: null,
      ts: '2026-01-02T00:00:00.000Z',
      summary: 'The user asked for the order parser; 249 turns of reading files.',
      firstKeptId: 't248-u',
    },
    ...turnEntries(250),
  ])
}
describe('load a 1,000-entry session with a compaction entry near its end', () => {
  const check = (n: number, expected: number) => {
    if (n !== expected) throw new Error(`loaded ${n} entries, not ${expected}`)
  }
  const full = async (store: typeof jsonl | typeof onMemory) =>
    check((await store.load('tail-1000')).entries.length, 1005)
  const tail = async (store: typeof jsonl | typeof onMemory) =>
    check((await store.loadTail('tail-1000')).entries.length, 14)
  bench('PGlite in memory: load (full)', () => full(onMemory), { time: 2000 })
  bench('PGlite in memory: loadTail', () => tail(onMemory), { time: 2000 })
  bench('JSONL file: load (full)', () => full(jsonl), { time: 2000 })
  bench('JSONL file: loadTail', () => tail(jsonl), { time: 2000 })
})
