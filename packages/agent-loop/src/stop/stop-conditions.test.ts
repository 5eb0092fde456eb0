import { textMessage, ValidationError } from '@contextkit/core'
import type { ReplySpec } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import {
  budgetExceeded,
  maxSteps,
  noToolCalls,
  stopConditions,
  toolCalled,
} from './stop-conditions.js'

let counter = 0
const tick = defineTool({
  name: 'tick',
  description: 'Count one',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => `tick ${n}`,
})
const finish = defineTool({
  name: 'finish',
  description: 'Give the final answer',
  input: z.object({ answer: z.string() }),
  execute: ({ answer }) => answer,
})

/** A model that never stops calling tools, each call different (so the loop guard stays quiet). */
const endless = (): ReplySpec => ({ toolUse: { name: 'tick', input: { n: ++counter } } })

async function run(
  extra: Partial<Parameters<typeof runAgent>[0]> = {},
  script: () => ReplySpec = endless,
) {
  const { provider, bodies } = await emulated(script)
  const result = await runAgent({
    provider,
    model: 'claude-haiku-4-5',
    messages: [textMessage('user', 'count')],
    tools: [tick, finish],
    ...extra,
  }).result
  return { result, calls: bodies().length }
}

describe('stop conditions', () => {
  test('maxSteps defaults to 20: a model that never stops is stopped', async () => {
    const { result, calls } = await run()
    expect(result.stopReason).toBe('max_steps')
    expect(calls).toBe(20)
    expect(result.steps).toBe(20)
    // every call still has its result: the last step is whole
    expect(result.messages).toHaveLength(40)
    expect(result.messages.at(-1)?.content[0]?.type).toBe('tool_result')
  })

  test('maxSteps(n), and a custom stop condition alongside it', async () => {
    expect((await run({ stopWhen: maxSteps(3) })).calls).toBe(3)
    const custom = await run({ stopWhen: [(s) => s.toolCalls.length >= 2, maxSteps(10)] })
    expect(custom.result.stopReason).toBe('stop_condition')
    expect(custom.calls).toBe(2)
    // a custom condition alone still gets the default cap
    expect(stopConditions([() => false]).map((c) => c.stopReason)).toEqual([
      'stop_condition',
      'max_steps',
    ])
  })

  test('toolCalled(name) stops after the step that called it, with its result kept', async () => {
    let i = 0
    const script = () =>
      ++i < 3
        ? { toolUse: { name: 'tick', input: { n: i } } }
        : { toolUse: { name: 'finish', input: { answer: '42' } } }
    const { result, calls } = await run({ stopWhen: toolCalled('finish') }, script)
    expect(result.stopReason).toBe('tool_called')
    expect(calls).toBe(3)
    expect(result.messages.at(-1)?.content[0]).toMatchObject({
      type: 'tool_result',
      content: [{ type: 'text', text: '42' }],
    })
  })

  test('budgetExceeded(tokens) stops once the run used more tokens than that', async () => {
    const script = () => ({
      toolUse: { name: 'tick', input: { n: ++counter } },
      usage: { input_tokens: 400, output_tokens: 100 },
    })
    const { result, calls } = await run({ stopWhen: budgetExceeded(1200) }, script)
    expect(result.stopReason).toBe('budget_exceeded')
    expect(calls).toBe(3)
    expect(result.usage.input + result.usage.output).toBe(1500)
  })

  test('noToolCalls() ends on a reply without calls, with the reply stop reason', async () => {
    let i = 0
    const script = () =>
      ++i === 1 ? { toolUse: { name: 'tick', input: { n: 1 } } } : { text: 'All done.' }
    const { result, calls } = await run({ stopWhen: [noToolCalls(), maxSteps(5)] }, script)
    expect(result.stopReason).toBe('end_turn')
    expect(calls).toBe(2)
    expect(result.text).toBe('All done.')
  })

  test('a custom condition that throws ends the run with an error, the step kept whole', async () => {
    const { result, calls } = await run({
      stopWhen: () => {
        throw new Error('oops')
      },
    })
    expect(calls).toBe(1)
    expect(result.stopReason).toBe('error')
    expect(result.error?.message).toContain('A stop condition threw: Error: oops')
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'user'])
  })

  test('bad arguments are typed errors', () => {
    expect(() => maxSteps(0)).toThrow(ValidationError)
    expect(() => toolCalled('')).toThrow(ValidationError)
    expect(() => budgetExceeded(-1)).toThrow(ValidationError)
    expect(() => stopConditions([42 as never])).toThrow(ValidationError)
  })
})
