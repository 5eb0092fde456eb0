// Compaction and durable appends with per-step control on, through the real SDK against testkit.
import { type ContextMiddleware, sessionMessages, textMessage } from '@contextkit/core'
import type { ScriptRequest } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { repairOrphans } from '../budget/history.js'
import { SUMMARY_SYSTEM_PROMPT } from '../compaction/summarize.js'
import { emulatorModels, model, readChunk } from '../run/compaction.fixture.js'
import { runAgent } from '../run/run-agent.js'
import { maxSteps } from '../stop/stop-conditions.js'
import { collect, emulated, memorySessionStore } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

const STEPS = 16

const unused = defineTool({
  name: 'unused',
  description: 'Never offered',
  input: z.object({}),
  execute: () => 'never',
})

function scripted() {
  let calls = 0
  return (r: ScriptRequest) => {
    if (r.system.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 40)))
      return 'Summary: chunks read so far.'
    calls++
    return calls <= STEPS
      ? { text: `Reading ${calls}.`, toolUse: { name: 'read_chunk', input: { n: calls } } }
      : 'All read.'
  }
}

const stepNote: ContextMiddleware = {
  name: 'step-note',
  prepareStep: (turn, _run, info) => ({
    ...turn,
    userSections: [
      ...turn.userSections,
      { id: 'step', text: `Step ${info.step}.`, priority: 5, cache: 'volatile' },
    ],
  }),
}

describe('compaction with prepareStep', () => {
  test('a long run with per-step tools and a middleware prepareStep compacts and saves every step', async () => {
    const store = memorySessionStore()
    const { provider, emulator, bodies } = await emulated(scripted(), { models: emulatorModels })
    const run = runAgent({
      provider,
      model,
      system: 'You read logs.',
      messages: [textMessage('user', `Read ${STEPS} chunks, then say done.`)],
      tools: [readChunk, unused],
      stopWhen: maxSteps(40),
      session: { store, id: 'steps' },
      middleware: [stepNote],
      prepareStep: ({ step }) => ({
        activeTools: ['read_chunk'],
        toolChoice: step <= STEPS ? 'any' : 'auto',
      }),
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    expect(result.stopReason).toBe('end_turn')
    expect(emulator.requests.filter((r) => r.status !== 200)).toEqual([])
    const compactions = events.filter((e) => e.type === 'compaction-end')
    expect(compactions.length).toBeGreaterThan(0)
    const agent = bodies().filter((b) => !(b.system?.[0]?.text ?? '').startsWith('You write'))
    expect(agent).toHaveLength(STEPS + 1)
    for (const b of agent) expect(b.tools?.map((t) => t.name)).toEqual(['read_chunk'])
    // every step's note reached its own call, and only its own
    agent.forEach((b, i) => {
      const text = JSON.stringify(b.messages)
      expect(text).toContain(`Step ${i + 1}.`)
      expect(text).not.toContain(`Step ${i + 2}.`)
    })
    // the session holds every message, whole, and the compaction entries
    const entries = store.data.get('steps') ?? []
    const saved = sessionMessages(entries)
    expect(saved).toHaveLength(1 + STEPS * 2 + 1)
    expect(repairOrphans(saved)).toEqual(saved)
    expect(entries.filter((e) => e.type === 'compaction')).toHaveLength(compactions.length)
    expect(JSON.stringify(saved)).not.toContain('Step 0.')
  }, 60_000)
})
