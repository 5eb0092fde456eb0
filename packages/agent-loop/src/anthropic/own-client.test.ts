import { ConfigurationError, textMessage, ValidationError } from '@contextkit/core'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { expect, test } from 'vitest'
import { runAgent } from '../run/run-agent.js'
import { anthropicProvider } from './anthropic-provider.js'

// anthropicProvider without a client: it makes one with the real SDK from apiKey and baseURL
// (the SDK imported on the first call), here pointed at the testkit emulator.

test('no client: the provider makes its own from apiKey and baseURL; prompt is the user message', async () => {
  const emu = await startAnthropicEmulator({ script: ['Hello from the emulator.'] })
  try {
    const run = runAgent({
      provider: anthropicProvider({ apiKey: 'test-key', baseURL: emu.url }),
      model: 'claude-haiku-4-5',
      prompt: 'Hi',
    })
    const result = await run.result
    expect(result.text).toBe('Hello from the emulator.')
    const sent = emu.requests.filter((r) => r.path === '/v1/messages')
    expect(sent).toHaveLength(1)
    const { authorization, 'x-api-key': key } = sent[0]!.headers
    expect(key ?? authorization).toMatch(/^(Bearer )?test-key$/)
    expect(JSON.stringify(sent[0]!.body)).toContain('"content":[{"type":"text","text":"Hi"')
  } finally {
    await emu.close()
  }
})

test('client with apiKey or baseURL is refused; a bad baseURL or key is a ValidationError', () => {
  const client = { messages: { create: () => Promise.reject(new Error('unused')) } } as never
  expect(() => anthropicProvider({ client, apiKey: 'k' })).toThrow(ConfigurationError)
  expect(() => anthropicProvider({ client, baseURL: 'http://127.0.0.1:1' })).toThrow(
    /give `client`, or `apiKey`\/`baseURL`/,
  )
  expect(() => anthropicProvider({ baseURL: 'not a url' })).toThrow(ValidationError)
  expect(() => anthropicProvider({ apiKey: '' })).toThrow(ValidationError)
  expect(() => anthropicProvider(null as never)).toThrow(ValidationError)
})

test('prompt and messages together, or neither, is a ValidationError naming both', () => {
  const provider = anthropicProvider({ apiKey: 'k', baseURL: 'http://127.0.0.1:1' })
  const model = 'claude-haiku-4-5'
  expect(() =>
    runAgent({ provider, model, prompt: 'Hi', messages: [textMessage('user', 'Hi')] }),
  ).toThrow(/prompt and messages: give one/)
  expect(() => runAgent({ provider, model })).toThrow(/give the user message as `prompt/)
  expect(() => runAgent({ provider, model, prompt: '' })).toThrow(ValidationError)
})
