import { getModelInfo, textMessage, usageCostUsd } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { collect, emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { runAgent } from './run-agent.js'

const echo = defineTool({
  name: 'echo',
  description: 'Echo',
  input: z.object({ s: z.string() }),
  execute: ({ s }) => s,
})

describe('cost of a run', () => {
  test('result.usage.costUsd and each call and usage event carry the price of their tokens', async () => {
    const { provider } = await emulated([
      { toolUse: { name: 'echo', input: { s: 'a' } }, usage: { cache_read_input_tokens: 1000 } },
      { text: 'done', usage: { cache_creation_input_tokens: 500 } },
    ])
    const model = getModelInfo('claude-haiku-4-5')
    const run = runAgent({ provider, model, messages: [textMessage('user', 'go')], tools: [echo] })
    const events = await collect(run.events)
    const { usage } = await run.result
    expect(usage.costUsd).toBeCloseTo(usageCostUsd(usage, model.pricing)!, 12)
    expect(usage.costUsd).toBeGreaterThan(0)
    const perCall = usage.calls.map((c) => c.costUsd!)
    expect(perCall).toHaveLength(2)
    expect(perCall.reduce((a, b) => a + b, 0)).toBeCloseTo(usage.costUsd!, 12)
    const usageEvents = events.flatMap((e) => (e.type === 'usage' ? [e] : []))
    expect(usageEvents.map((e) => e.usage.costUsd)).toEqual(perCall)
    expect(usageEvents.at(-1)?.total.costUsd).toBeCloseTo(usage.costUsd!, 12)
  })

  test('a model without prices has no costUsd anywhere', async () => {
    const { provider } = await emulated(['hello'])
    const model = { ...getModelInfo('claude-haiku-4-5'), pricing: undefined }
    const run = runAgent({ provider, model, messages: [textMessage('user', 'hi')] })
    await collect(run.events)
    const { usage } = await run.result
    expect(usage.input).toBeGreaterThan(0)
    expect('costUsd' in usage).toBe(false)
    expect(usage.calls.every((c) => !('costUsd' in c))).toBe(true)
  })
})
