// openAIChatProvider and OpenAI's reasoning models: the reply size goes in max_completion_tokens
// for them (testkit answers a model declared a reasoning model as OpenAI does: 400 on max_tokens),
// and extraBody may replace or remove a field the provider sets. The same request checked with
// the official `openai` client against the same endpoint.
import { getModelInfo, textMessage } from '@contextkit/core'
import { startAnthropicEmulator } from '@contextkit/testkit'
import OpenAI from 'openai'
import { expect, test } from 'vitest'
import { runAgent } from '../run/run-agent.js'
import { onCleanup } from '../test-support.js'
import { openAIChatProvider } from './chat-provider.js'

async function reasoningEmulator(script: string[]) {
  const emulator = await startAnthropicEmulator({
    script,
    models: [
      { id: 'o4-mini', reasoning: true },
      { id: 'gpt-5-mini', reasoning: true },
      { id: 'my-reasoner', reasoning: true },
      { id: 'claude-haiku-4-5' },
    ],
  })
  onCleanup(() => emulator.close())
  const bodies = () =>
    emulator.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as Record<string, unknown>)
  return { emulator, bodies }
}

test('o-series and gpt-5 models get max_completion_tokens; others max_tokens', async () => {
  const { emulator, bodies } = await reasoningEmulator(['One.', 'Two.', 'Three.'])
  // the endpoint refuses max_tokens for these models, as OpenAI does (the official client sees it)
  const client = new OpenAI({ apiKey: 'k', baseURL: `${emulator.url}/v1`, maxRetries: 0 })
  await expect(
    client.chat.completions.create({
      model: 'o4-mini',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    }),
  ).rejects.toThrow(/Unsupported parameter: 'max_tokens'/)
  const provider = openAIChatProvider({
    baseURL: `${emulator.url}/v1`,
    apiKey: 'k',
    retryDelayMs: 1,
  })
  for (const model of ['o4-mini', 'gpt-5-mini', 'claude-haiku-4-5']) {
    const result = await runAgent({
      provider,
      model: getModelInfo(model),
      maxTokens: 300,
      messages: [textMessage('user', 'Hi')],
    }).result
    expect(result.error).toBeUndefined()
  }
  const sent = bodies().slice(1)
  expect(sent.map((b) => [b.model, b.max_completion_tokens, b.max_tokens])).toEqual([
    ['o4-mini', 300, undefined],
    ['gpt-5-mini', 300, undefined],
    ['claude-haiku-4-5', undefined, 300],
  ])
})

test('the model info’s maxTokensParam and the option decide; extraBody replaces or removes a field', async () => {
  const { emulator, bodies } = await reasoningEmulator(['One.', 'Two.', 'Three.'])
  const baseURL = `${emulator.url}/v1`
  const run = (provider: ReturnType<typeof openAIChatProvider>, model = 'my-reasoner') =>
    runAgent({
      provider,
      model: { ...getModelInfo(model), maxTokensParam: 'max_completion_tokens' as const },
      maxTokens: 200,
      messages: [textMessage('user', 'Hi')],
    }).result
  // an id no rule knows, declared by its model info
  expect((await run(openAIChatProvider({ baseURL, apiKey: 'k' }))).error).toBeUndefined()
  // the option wins over the model info (the server then refuses, as OpenAI would)
  const forced = await run(
    openAIChatProvider({ baseURL, apiKey: 'k', maxTokensParam: 'max_tokens', maxRetries: 0 }),
  )
  expect(forced.error?.message).toMatch(/Unsupported parameter: 'max_tokens'/)
  // extraBody replaces a provider field and removes one given as undefined
  const extra = await runAgent({
    provider: openAIChatProvider({
      baseURL,
      apiKey: 'k',
      extraBody: { max_tokens: undefined, max_completion_tokens: 77, stream_options: undefined },
    }),
    model: 'claude-haiku-4-5',
    maxTokens: 200,
    messages: [textMessage('user', 'Hi')],
  }).result
  expect(extra.error).toBeUndefined()
  const [first, second, third] = bodies()
  expect(first).toMatchObject({ max_completion_tokens: 200 })
  expect(first?.max_tokens).toBeUndefined()
  expect(second).toMatchObject({ max_tokens: 200 })
  expect(third).toMatchObject({ max_completion_tokens: 77, stream: true })
  expect(third && 'max_tokens' in third).toBe(false)
  expect(third && 'stream_options' in third).toBe(false)
})
