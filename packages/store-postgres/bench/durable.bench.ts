import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineTool, runAgent } from '@contextkit/agent-loop'
import { scriptedProvider } from '@contextkit/agent-loop/testing'
import type { SessionStore } from '@contextkit/core'
import { textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { PGlite } from '@electric-sql/pglite'
import { bench, describe } from 'vitest'
import * as z from 'zod'
import { migrate, postgresSessionStore } from '../src/index.js'

// What durable runs cost in writes: a 10-step run (9 steps that call a tool, then the answer)
// on the JSONL store (fsync on) and on PGlite on disk. Every `append` is one durable write
// (one fsync / one transaction); the count per step is checked, not only timed.
const STEPS = 10
const tmp = (label: string) => mkdtempSync(join(tmpdir(), `ck-bench-${label}-`))
const pglite = await PGlite.create(tmp('durable-pglite'))
await migrate(pglite)

/** `store` with its appends counted. */
function counted(store: SessionStore): SessionStore & { appends: number } {
  const wrapped = {
    appends: 0,
    load: (id: string) => store.load(id),
    append: (id: string, entries: Parameters<SessionStore['append']>[1]) => {
      wrapped.appends++
      return store.append(id, entries)
    },
    list: () => store.list(),
    delete: (id: string) => store.delete(id),
  }
  return wrapped
}

const note = defineTool({
  name: 'note',
  description: 'Take a note',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => `noted ${n}`,
})

let run = 0
async function durableRun(store: SessionStore & { appends: number }): Promise<void> {
  const script = Array.from({ length: STEPS - 1 }, (_, n) => ({
    toolCalls: [{ name: 'note', input: { n } }],
  }))
  const before = store.appends
  const result = await runAgent({
    provider: scriptedProvider([...script, 'Done.'], { record: false }),
    model: 'claude-haiku-4-5',
    tools: [note],
    stopWhen: [],
    messages: [textMessage('user', 'Take nine notes.')],
    session: { store, id: `durable-${++run}` },
  }).result
  if (result.steps !== STEPS) throw new Error(`ran ${result.steps} steps: ${result.error?.message}`)
  // one append for the user's message, then the reply before its tools and the results after
  const appends = store.appends - before
  if (appends > 1 + 2 * STEPS) throw new Error(`${appends} appends for ${STEPS} steps`)
  if (run === 1)
    console.info(`durable run: ${appends} appends for ${STEPS} steps (≤ 2 per step + 1)`)
}

const jsonl = counted(jsonlSessionStore(tmp('durable-jsonl')))
const onDisk = counted(postgresSessionStore(pglite))
describe(`a durable ${STEPS}-step run (9 tool steps), every step written ahead`, () => {
  bench('JSONL file (fsync on)', () => durableRun(jsonl), { time: 3000 })
  bench('PGlite on disk', () => durableRun(onDisk), { time: 3000 })
})
