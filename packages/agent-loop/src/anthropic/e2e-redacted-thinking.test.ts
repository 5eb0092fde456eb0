import { getModelInfo, textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

const model = getModelInfo('claude-haiku-4-5')
const ENCRYPTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfHXTDUAs'

let runs = 0
const look = defineTool({
  name: 'look',
  description: 'Look',
  input: z.object({ at: z.string() }),
  execute: ({ at }) => {
    runs++
    return `saw ${at}`
  },
})

describe('redacted thinking is kept and replayed unchanged (real SDK against testkit)', () => {
  test('a tool-use continuation sends back the redacted and the signed thinking, so the API accepts it', async () => {
    runs = 0
    const { provider, bodies } = await emulated([
      {
        content: [
          { type: 'redacted_thinking', data: ENCRYPTED },
          { type: 'thinking', thinking: 'Look first.' },
          { type: 'tool_use', name: 'look', input: { at: 'the sky' } },
        ],
      },
      'The sky is blue.',
    ])
    const run = runAgent({
      provider,
      model,
      messages: [textMessage('user', 'What colour is the sky?')],
      tools: [look],
      thinking: { enabled: true, budgetTokens: 2000 },
    })
    await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('The sky is blue.')
    expect(runs).toBe(1)
    expect(result.messages[0]?.content.map((b) => b.type)).toEqual([
      'redacted_thinking',
      'thinking',
      'tool_call',
    ])
    expect(result.messages[0]?.content[0]).toEqual({ type: 'redacted_thinking', data: ENCRYPTED })
    const replayed = bodies()[1]?.messages[1]?.content
    expect(Array.isArray(replayed) && replayed.slice(0, 2).map((b) => b.type)).toEqual([
      'redacted_thinking',
      'thinking',
    ])
  })
})
