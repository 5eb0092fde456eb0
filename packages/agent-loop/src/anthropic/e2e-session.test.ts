// End to end: an abort in the middle of a streamed reply, with the session on disk.
import { readFile } from 'node:fs/promises'
import { sessionMessages, textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { repairOrphans } from '../budget/history.js'
import { runAgent } from '../run/run-agent.js'
import { emulated, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

let runs = 0
const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => {
    runs++
    return `Sunny in ${city}`
  },
})

describe('abort mid-stream', () => {
  test('leaves a session file of whole steps that the next run continues from', async () => {
    const { dir, cleanup } = await tempDir('abort-e2e-')
    onCleanup(cleanup)
    const store = jsonlSessionStore(dir)
    const { provider, bodies } = await emulated([
      { text: 'Checking.', toolUse: { name: 'get_weather', input: { city: 'Paris' } } },
      // the second reply trickles out: the abort lands in the middle of it
      {
        text: 'The weather in Paris is sunny and the rest of this never arrives.',
        transport: { writeSize: 48, chunkDelayMs: 15 },
      },
      'Resumed: it is sunny in Paris.',
    ])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Weather in Paris?')],
      tools: [weather],
      session: { store, id: 'chat' },
    })
    for await (const e of run.events) {
      if (e.type === 'text-delta' && e.step === 2) {
        run.abort()
        break
      }
    }
    const t0 = performance.now()
    const result = await run.result
    expect(performance.now() - t0).toBeLessThan(1_000)
    expect(result.stopReason).toBe('aborted')
    expect(runs).toBe(1)

    // on disk: every line is whole JSON, and the steps saved are whole (no partial reply)
    const raw = await readFile(store.pathOf('chat'), 'utf8')
    expect(raw.endsWith('\n')).toBe(true)
    const lines = raw
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string })
    expect(lines.map((l) => l.type)).toEqual(['session', 'message', 'message', 'message'])
    expect(raw).not.toContain('The weather in Paris')
    const loaded = await store.load('chat')
    expect(loaded.warnings).toEqual([])
    const history = sessionMessages(loaded.entries)
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    // consistent: every tool call has its result, nothing to repair
    expect(repairOrphans(history)).toEqual(history)

    // the next run loads it and goes on; the API (emulator) accepts the history as it is
    const next = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'And now?')],
      tools: [weather],
      session: { store, id: 'chat' },
    }).result
    expect(next.error).toBeUndefined()
    expect(next.text).toBe('Resumed: it is sunny in Paris.')
    // the saved tool result and the new question go in one user turn
    const sent = bodies().at(-1)?.messages ?? []
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    const lastTurn = sent[2]?.content
    expect(Array.isArray(lastTurn) && lastTurn.map((b) => b.type)).toEqual(['tool_result', 'text'])
    const after = await store.load('chat')
    expect(after.warnings).toEqual([])
    expect(sessionMessages(after.entries).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'user',
      'assistant',
    ])
  })
})
