import { textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { collect, emulated, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { runAgent } from './run-agent.js'

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  execute: async ({ city }) => `Sunny in ${city}`,
})

describe('runAgent against testkit with the real SDK', () => {
  test('a tool round trip: call, result fed back, final answer, events in order', async () => {
    const { provider, bodies } = await emulated([
      { text: 'Let me check.', toolUse: { name: 'get_weather', input: { city: 'Paris' } } },
      (req) => `It says: ${JSON.stringify(req.messages.at(-1)?.content)}`,
    ])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Weather in Paris?')],
      tools: [weather],
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(result.steps).toBe(2)
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant'])
    expect(result.messages[1]?.content[0]).toMatchObject({
      type: 'tool_result',
      content: [{ type: 'text', text: 'Sunny in Paris' }],
      isError: false,
    })
    expect(result.text).toContain('Sunny in Paris')
    expect(bodies()).toHaveLength(2)
    expect(bodies()[0]?.tools?.map((t) => t.name)).toEqual(['get_weather'])
    expect(wireText(bodies()[0]?.messages.at(-1))).toBe('Weather in Paris?')
    const types = events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1])
    expect(types[0]).toBe('run-start')
    expect(types.at(-1)).toBe('run-end')
    expect(types).toContain('tool-call')
    expect(types).toContain('tool-result')
    expect(result.usage.input).toBeGreaterThan(0)
  })
})
