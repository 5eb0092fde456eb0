#!/usr/bin/env node
// How long `run.result` takes to settle after `run.abort()`: a real `runAgent` run with the real
// `@anthropic-ai/sdk` against testkit's emulator on 127.0.0.1 and a JSONL session in a temp dir.
// Two moments: mid-stream (a slow reply, aborted at its first text delta) and mid-tool (a tool
// that runs until aborted). Each is measured with the session's fsync off and on; the figures
// are the median and the slowest of the rounds, in ms. The README's "settles within 100 ms"
// comes from here; the tests only check that an abort does not wait for the stream or the tool.
// Needs the package built:
//
//   node packages/agent-loop/bench/abort-latency.mjs [rounds]
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import Anthropic from '@anthropic-ai/sdk'
import { defineTool, runAgent } from '@contextkit/agent-loop'
import { anthropicProvider } from '@contextkit/agent-loop/anthropic'
import { textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { z } from 'zod'

const ROUNDS = Number(process.argv[2] ?? 15)

const hang = defineTool({
  name: 'hang',
  description: 'Runs until aborted',
  input: z.object({}),
  execute: (_input, { signal }) =>
    new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped'))),
})

/** One aborted run; resolves to the ms from `abort()` to `result` settling. */
async function once(moment, fsync) {
  const dir = await mkdtemp(join(tmpdir(), 'abort-bench-'))
  const emulator = await startAnthropicEmulator({
    script:
      moment === 'stream'
        ? () => ({ text: 'A long answer, two characters at a time. '.repeat(10) })
        : () => ({ toolUse: { name: 'hang', input: {} } }),
    transport: { chunkDelayMs: 40, deltaChars: 2 },
  })
  try {
    const client = new Anthropic({ apiKey: 'bench', baseURL: emulator.url, maxRetries: 0 })
    const run = runAgent({
      provider: anthropicProvider({ client }),
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Go.')],
      tools: [hang],
      session: { store: jsonlSessionStore(dir, { fsync }), id: 'bench' },
    })
    for await (const e of run.events) {
      if (moment === 'stream' && e.type === 'text-delta') break
      if (moment === 'tool' && e.type === 'tool-call-start') break
    }
    // mid-tool: give the tool a moment to start running
    if (moment === 'tool') await new Promise((r) => setTimeout(r, 20))
    const t0 = performance.now()
    run.abort()
    const result = await run.result
    const ms = performance.now() - t0
    if (result.stopReason !== 'aborted') throw new Error(`stopped ${result.stopReason}`)
    return ms
  } finally {
    await emulator.close()
    await rm(dir, { recursive: true, force: true })
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const moment of ['stream', 'tool']) {
  for (const fsync of [false, true]) {
    const times = []
    for (let i = 0; i < ROUNDS; i++) times.push(await once(moment, fsync))
    console.log(
      `abort mid-${moment}, fsync ${fsync ? 'on ' : 'off'}: median ${median(times).toFixed(1)} ms, slowest ${Math.max(...times).toFixed(1)} ms (${ROUNDS} rounds)`,
    )
  }
}
