import { getModelInfo, textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { RequiredSectionsError } from './errors.js'

const hello = [textMessage('user', 'Hello')]

describe('required sections', () => {
  test('a tool result that fills the window: the system prompt is not dropped silently, the run ends typed', async () => {
    const huge = defineTool({
      name: 'dump',
      description: 'Returns a lot',
      input: z.object({}),
      execute: () => 'word '.repeat(3_000),
    })
    const { provider, emulator } = await emulated([
      { text: 'Reading.', toolUse: { name: 'dump', input: {} } },
      'never sent',
    ])
    const small = { ...getModelInfo('claude-haiku-4-5'), contextWindow: 4_000, maxOutput: 500 }
    const result = await runAgent({
      provider,
      model: small,
      system: `You are careful. Safety rules: ${'never do harm. '.repeat(40)}`,
      tools: [huge],
      messages: hello,
      // sent whole: the default (a quarter of the window) would clip the result and the run fit
      toolResultMaxTokens: 10_000,
    }).result
    expect(result.stopReason).toBe('error')
    expect(RequiredSectionsError.isInstance(result.error)).toBe(true)
    expect(result.error?.details).toMatchObject({ required: ['system'] })
    // the first call went out with the system prompt; the second was never sent without it
    expect(emulator.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(1)
    // the step that ran is saved whole
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'user'])
  })
})
