import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsonlSessionStore } from '@contextkit/agent-loop/node'
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
