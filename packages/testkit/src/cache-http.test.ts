import Anthropic from '@anthropic-ai/sdk'
import { afterEach, describe, expect, test } from 'vitest'
import {
  type AnthropicEmulator,
  type AnthropicEmulatorOptions,
  EmulatorConfigError,
  startAnthropicEmulator,
} from './index.js'

const open: AnthropicEmulator[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()))
})

async function setup(options: Partial<AnthropicEmulatorOptions> = {}, apiKey = 'key-a') {
  const emu = await startAnthropicEmulator({ script: () => 'ok', ...options })
  open.push(emu)
  return { emu, client: new Anthropic({ apiKey, baseURL: emu.url, maxRetries: 2 }) }
}

const MODEL = 'claude-sonnet-4-6'
/** A 3,000-token system prompt (12,000 characters) with a 5-minute breakpoint. */
const system: Anthropic.TextBlockParam[] = [
  { type: 'text', text: 'S'.repeat(12_000), cache_control: { type: 'ephemeral' } },
]
const params = (question: string) => ({
  model: MODEL,
  max_tokens: 100,
  system,
  messages: [{ role: 'user' as const, content: question }],
})

describe('the cache model through the real SDK', () => {
  test('usage reports creation, then reads; count_tokens is their sum with input_tokens', async () => {
    const { emu, client } = await setup()
    const first = await client.messages.create(params('abcd'))
    expect(first.usage).toMatchObject({
      input_tokens: 4,
      cache_creation_input_tokens: 3000,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 3000, ephemeral_1h_input_tokens: 0 },
    })
    const streamed = await client.messages.stream(params('abcdefgh')).finalMessage()
    expect(streamed.usage).toMatchObject({
      input_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 3000,
    })
    const counted = await client.messages.countTokens({
      model: MODEL,
      system,
      messages: [{ role: 'user', content: 'abcdefgh' }],
    })
    expect(counted.input_tokens).toBe(3005)
    expect(emu.cacheStats()).toMatchObject({
      enabled: true,
      requests: 2,
      hits: 1,
      writes: 1,
      totalInputTokens: 6009,
      cacheReadInputTokens: 3000,
      entries: 1,
    })
    expect(emu.cacheStats().calls.map((c) => c.requestId)).toEqual(
      emu.requests.filter((r) => r.path === '/v1/messages').map((r) => r.requestId),
    )
  })

  test('an injected clock expires entries without sleeping', async () => {
    let now = 0
    const { emu, client } = await setup({ cache: { clock: () => now } })
    await client.messages.create(params('abcd'))
    now += 4 * 60_000
    expect((await client.messages.create(params('abcd'))).usage.cache_read_input_tokens).toBe(3000)
    now += 5 * 60_000 + 1
    const late = await client.messages.create(params('abcd'))
    expect(late.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 3000,
    })
    expect(emu.cacheStats().calls.map((c) => c.at)).toEqual([0, 240_000, 540_001])
  })

  test('the key scopes entries: a second client with another key misses', async () => {
    const { emu, client } = await setup()
    await client.messages.create(params('abcd'))
    const other = new Anthropic({ apiKey: 'key-b', baseURL: emu.url })
    expect((await other.messages.create(params('abcd'))).usage.cache_read_input_tokens).toBe(0)
    expect((await client.messages.create(params('abcd'))).usage.cache_read_input_tokens).toBe(3000)
  })

  test('a retried overload writes once: failed attempts do not touch the cache', async () => {
    const { emu, client } = await setup({
      script: [{ fault: { kind: 'http', status: 529, retryAfterMs: 1 } }, 'ok', 'again'],
    })
    const reply = await client.messages.create(params('abcd'))
    expect(reply.usage.cache_creation_input_tokens).toBe(3000)
    expect(emu.cacheStats().requests).toBe(1)
  })

  test('scripted usage still wins over the model', async () => {
    const { client } = await setup({
      script: [
        { text: 'x', usage: { cache_read_input_tokens: 7, cache_creation_input_tokens: 5 } },
      ],
    })
    const reply = await client.messages.create(params('abcd'))
    expect(reply.usage).toMatchObject({
      cache_read_input_tokens: 7,
      cache_creation_input_tokens: 5,
      cache_creation: { ephemeral_5m_input_tokens: 5, ephemeral_1h_input_tokens: 0 },
    })
  })

  test('cache: false reports everything as input, as before the model existed', async () => {
    const { emu, client } = await setup({ cache: false })
    for (const q of ['abcd', 'abcd']) {
      const reply = await client.messages.create(params(q))
      expect(reply.usage).toEqual({
        input_tokens: 3004,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      })
    }
    expect(emu.cacheStats()).toMatchObject({ enabled: false, requests: 2, hitRate: 0 })
    emu.clearCache()
    expect(emu.cacheStats().requests).toBe(0)
  })

  test('bad cache options reject with EmulatorConfigError', async () => {
    await expect(
      startAnthropicEmulator({ script: [], cache: { lookbackBlocks: -3 } }),
    ).rejects.toBeInstanceOf(EmulatorConfigError)
    await expect(startAnthropicEmulator({ script: [], cache: 'on' as never })).rejects.toThrow(
      '`cache` must be false or an options object',
    )
  })
})
