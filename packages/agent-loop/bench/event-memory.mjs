#!/usr/bin/env node
// Memory of a 10,000-event run: a real `runAgent` run (scripted provider, one reply streamed as
// 10,000 one-character text deltas), its events read live or never. Prints the heap the run still
// holds once it ended (after full GCs, `run` still referenced), the median of 7 runs, next to the
// same reply sent as one delta (what a run holds besides its events). Needs the package built:
//
//   node --expose-gc packages/agent-loop/bench/event-memory.mjs
import { runAgent } from '@contextkit/agent-loop'
import { scriptedProvider } from '@contextkit/agent-loop/testing'
import { textMessage } from '@contextkit/core'

const EVENTS = 10_000
const ROUNDS = 7
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')

/** Heap used after three full collections, in bytes. */
function settledHeap() {
  for (let i = 0; i < 3; i++) globalThis.gc()
  return process.memoryUsage().heapUsed
}

/** One run; `read` says whether the events are iterated while it runs. */
async function measure(read, chunkChars) {
  const provider = scriptedProvider(['x'.repeat(EVENTS)], { chunkChars, record: false })
  const before = settledHeap()
  const run = runAgent({
    provider,
    model: 'claude-haiku-4-5',
    messages: [textMessage('user', 'go')],
  })
  let seen = 0
  if (read) for await (const _ of run.events) seen++
  await run.result
  const held = settledHeap() - before
  if (run.runId === '') throw new Error('unreachable') // keeps `run` alive until here
  return { held, seen }
}

async function median(read, chunkChars) {
  const runs = []
  for (let i = 0; i < ROUNDS; i++) runs.push(await measure(read, chunkChars))
  runs.sort((a, b) => a.held - b.held)
  return runs[ROUNDS >> 1]
}

const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`
await median(true, 1) // warm-up: compile the code paths once
const one = await median(false, EVENTS)
console.log(`the reply as one text delta (${6} events): ${kib(one.held)} held after the run`)
for (const read of [true, false]) {
  const { held, seen } = await median(read, 1)
  const how = read ? `read live (${seen} events)` : 'never read'
  console.log(`${EVENTS} text deltas, ${how}: ${kib(held)} held after the run`)
}
