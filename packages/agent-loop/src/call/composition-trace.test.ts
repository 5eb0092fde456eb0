import { memoryTrace, textMessage } from '@contextkit/core'
import { expect, test } from 'vitest'
import * as z from 'zod'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { runAgent } from '../run/run-agent.js'
import { emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { COMPOSITION_RECORD_VERSION, type StepComposition } from './composition-trace.js'

const echo = defineTool({
  name: 'echo',
  description: 'Say it back',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
})

test('agent:composition: each call part by part, the reply room and the unchanged prefix', async () => {
  const { provider } = await emulated([
    { text: 'Calling.', toolUse: { name: 'echo', input: { text: 'hi' } } },
    { text: 'Done.' },
  ])
  const trace = memoryTrace()
  const result = await runAgent({
    provider,
    model: 'claude-haiku-4-5',
    system: [
      { id: 'identity', text: 'You are terse.', priority: 10, cache: 'stable' },
      { id: 'clock', text: 'It is noon.', priority: 5, cache: 'volatile' },
    ],
    messages: [textMessage('user', 'say hi')],
    tools: [echo],
    maxTokens: 500,
    trace,
  }).result
  expect(result.stopReason).toBe('end_turn')
  const records = trace
    .byStage(AGENT_TRACE_STAGES.composition)
    .map((e) => e.data as unknown as StepComposition)
  expect(records.map((r) => [r.v, r.step, r.phase])).toEqual([
    [COMPOSITION_RECORD_VERSION, 1, 'agent'],
    [COMPOSITION_RECORD_VERSION, 2, 'agent'],
  ])
  const [first, second] = records as [StepComposition, StepComposition]
  expect(first.parts.map((p) => `${p.kind}:${p.id}`)).toEqual([
    'system:identity',
    'system:clock',
    'tools:tools',
    'history:history',
  ])
  expect(second.parts.map((p) => `${p.kind}:${p.id}`)).toEqual([
    'system:identity',
    'system:clock',
    'tools:tools',
    'history:history',
    'tool-results:tool-results',
  ])
  for (const r of records) {
    expect(r.window).toBe(200_000)
    expect(r.reply).toBe(500)
    expect(r.total).toBe(r.parts.reduce((n, p) => n + p.tokens, 0))
    expect(r.free).toBe(r.window - r.total - r.reply)
    expect(r.counter.kind).toBe('estimate')
    for (const p of r.parts) expect(p.tokens).toBeGreaterThan(0)
  }
  // the second call sends the first call's messages unchanged, then the reply and its result
  expect(first.messages).toEqual({ count: 1, same: null })
  expect(second.messages).toEqual({ count: 3, same: 1 })
  expect(second.parts.find((p) => p.kind === 'history')?.count).toBe(2)
  expect(second.parts[0]?.digest).toBe(first.parts[0]?.digest)
  // it comes right after the call's budget record
  const stages = trace.events.map((e) => e.stage)
  const at = stages.indexOf(AGENT_TRACE_STAGES.composition)
  expect(stages[at - 1]).toBe(AGENT_TRACE_STAGES.budget)
})
