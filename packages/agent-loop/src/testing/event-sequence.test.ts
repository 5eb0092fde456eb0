import { createAnthropic } from '@ai-sdk/anthropic'
import Anthropic from '@anthropic-ai/sdk'
import { getModelInfo, textMessage } from '@contextkit/core'
import { ChatMLFormatter, type Formatter } from '@contextkit/formatters'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { expect, test } from 'vitest'
import { z } from 'zod'
import { type AiSdkLanguageModel, aiSdkProvider } from '../ai-sdk/ai-sdk-provider.js'
import { anthropicProvider } from '../anthropic/anthropic-provider.js'
import { openAICompatibleCompletionsProvider } from '../completions/completions-provider.js'
import type { AgentEvent } from '../events/events.js'
import { openAIChatProvider } from '../openai/chat-provider.js'
import type { ModelProvider } from '../provider/contract.js'
import { runAgent } from '../run/run-agent.js'
import { defineTool } from '../tools/define-tool.js'

const model = getModelInfo('claude-haiku-4-5')
const weather = defineTool({
  name: 'weather',
  description: 'Weather of a city',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `${city}: sunny`,
})

/** The event types of a run, consecutive repeats (the deltas of one block) folded into one. */
async function sequence(provider: ModelProvider, formatter?: Formatter): Promise<string[]> {
  const run = runAgent({
    provider,
    model,
    messages: [textMessage('user', 'Weather in Paris?')],
    tools: [weather],
    ...(formatter ? { formatter } : {}),
  })
  const types: string[] = []
  for await (const e of run.events as AsyncIterable<AgentEvent>) {
    if (types.at(-1) !== e.type) types.push(e.type)
  }
  expect((await run.result).stopReason).toBe('end_turn')
  return types
}

const call = { name: 'weather', input: { city: 'Paris' } }
const TEXT_CALL = `<tool_call>\n${JSON.stringify({ name: call.name, arguments: call.input })}\n</tool_call>`

test('the same scripted conversation yields the same event type sequence through every provider', async () => {
  const native = [{ text: 'Let me check. ', toolUse: call }, 'It is sunny in Paris.']
  const text = [`Let me check. ${TEXT_CALL}<|im_end|>`, 'It is sunny in Paris.<|im_end|>']
  const emulators = await Promise.all(
    [native, native, text, native].map((script) => startAnthropicEmulator({ script })),
  )
  try {
    const [a, b, c, d] = emulators.map((e) => e.url)
    const runs = {
      anthropic: await sequence(
        anthropicProvider({ client: new Anthropic({ baseURL: a, apiKey: 'k' }) }),
      ),
      'openai chat': await sequence(openAIChatProvider({ baseURL: `${b}/v1` })),
      completions: await sequence(
        openAICompatibleCompletionsProvider({ baseURL: `${c}/v1` }),
        new ChatMLFormatter(),
      ),
      'ai-sdk': await sequence(
        aiSdkProvider(
          createAnthropic({ baseURL: `${d}/v1`, apiKey: 'k' })(
            'claude-haiku-4-5',
          ) as unknown as AiSdkLanguageModel,
        ),
      ),
    }
    for (const [name, types] of Object.entries(runs))
      expect({ name, types }).toEqual({ name, types: runs.anthropic })
    expect(runs.anthropic).toContain('tool-call')
  } finally {
    await Promise.all(emulators.map((e) => e.close()))
  }
})
