import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { bench, describe } from 'vitest'
import { migrate, postgresSessionStore } from '../src/index.js'
import { turnEntries } from '../src/test-support.js'

// PGlite in this process: in memory, and on disk (a data directory, as a real deployment
// would keep it). One turn = user message, tool call, tool result, answer.
const memory = await PGlite.create()
const disk = await PGlite.create(mkdtempSync(join(tmpdir(), 'ck-bench-pglite-')))
await migrate(memory)
await migrate(disk)

const onMemory = postgresSessionStore(memory)
const onDisk = postgresSessionStore(disk)
for (let i = 0; i < 250; i++) await onMemory.append('load-1000', turnEntries(i))

let turn = 0
describe('append one turn (4 entries)', () => {
  bench(
    'PGlite in memory',
    async () => {
      await onMemory.append('append-memory', turnEntries(++turn))
    },
    { time: 2000 },
  )
  bench(
    'PGlite on disk',
    async () => {
      await onDisk.append('append-disk', turnEntries(++turn))
    },
    { time: 2000 },
  )
})

describe('load a 1,000-entry session', () => {
  bench(
    'PGlite in memory',
    async () => {
      const { entries } = await onMemory.load('load-1000')
      if (entries.length !== 1000) throw new Error(`loaded ${entries.length} entries`)
    },
    { time: 3000 },
  )
})
