// A model that sends a tool call nested thousands of levels deep cannot break the run: the call
// is answered with an error result, and the guard, the session store and the trace only ever
// see bounded JSON.
import { readFile } from 'node:fs/promises'
import { MAX_JSON_DEPTH, memoryTrace, sessionMessages, textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import type { AgentEvent } from '../events/events.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true }
  for (let i = 1; i < depth; i++) value = { a: value }
  return value
}

describe('tool call input depth', () => {
  for (const depth of [MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 3_000]) {
    test(`a ${depth}-deep input: the run goes on and the session keeps the whole turn`, async () => {
      const { dir, cleanup } = await tempDir('deep-')
      onCleanup(cleanup)
      let ran = 0
      const echo = defineTool({
        name: 'echo',
        description: 'Echoes',
        input: z.record(z.string(), z.unknown()),
        execute: () => {
          ran++
          return 'ok'
        },
      })
      const { provider } = await emulated([
        { text: 'Calling.', toolUse: { name: 'echo', input: nested(depth) } },
        'Done.',
      ])
      const store = jsonlSessionStore(dir)
      const trace = memoryTrace()
      const run = runAgent({
        provider,
        model: 'claude-haiku-4-5',
        tools: [echo],
        messages: [textMessage('user', 'Go.')],
        session: { store, id: 'deep' },
        trace,
      })
      const events = await collect(run.events)
      const result = await run.result
      expect(result.error).toBeUndefined()
      expect(result.stopReason).toBe('end_turn')
      const results = events.filter(
        (e): e is Extract<AgentEvent, { type: 'tool-result' }> => e.type === 'tool-result',
      )
      const tooDeep = depth > MAX_JSON_DEPTH
      expect(results[0]?.result.isError).toBe(tooDeep)
      expect(ran).toBe(tooDeep ? 0 : 1)
      if (tooDeep) expect(JSON.stringify(results[0]?.result.content)).toContain('nests deeper')
      const saved = sessionMessages((await store.load('deep')).entries)
      expect(saved.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
      expect((await readFile(`${dir}/deep.jsonl`, 'utf8')).length).toBeLessThan(100_000)
    }, 30_000)
  }
})
