import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import {
  type AnthropicEmulator,
  messageEvents,
  sseFrame,
  startAnthropicEmulator,
} from '../src/index.js'
import type { WireMessage } from '../src/wire-types.js'

const TEXT = 'The emulator streams this sentence in small deltas. '.repeat(40) // ≈ 2 KB
let emu: AnthropicEmulator
let bytewise: AnthropicEmulator
let client: Anthropic
let bytewiseClient: Anthropic

beforeAll(async () => {
  emu = await startAnthropicEmulator({ script: () => TEXT })
  bytewise = await startAnthropicEmulator({ script: () => TEXT, transport: { writeSize: 1 } })
  client = new Anthropic({ apiKey: 'k', baseURL: emu.url, maxRetries: 0 })
  bytewiseClient = new Anthropic({ apiKey: 'k', baseURL: bytewise.url, maxRetries: 0 })
})
afterAll(async () => {
  await emu.close()
  await bytewise.close()
})

const params = {
  model: 'claude-haiku-4-5',
  max_tokens: 1000,
  messages: [{ role: 'user' as const, content: 'go' }],
}

describe('round trips through the real SDK (2 KB reply)', () => {
  bench('messages.create (JSON)', async () => {
    await client.messages.create(params)
  })
  bench('messages.stream().finalMessage() (SSE, 16-char deltas)', async () => {
    await client.messages.stream(params).finalMessage()
  })
  bench(
    'messages.stream() with 1-byte writes',
    async () => {
      await bytewiseClient.messages.stream(params).finalMessage()
    },
    { time: 2000, warmupIterations: 3 },
  )
})

describe('event building', () => {
  const message: WireMessage = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [
      { type: 'text', text: TEXT },
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'f',
        input: { list: Array.from({ length: 50 }, (_, i) => i) },
      },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 1,
      output_tokens: 500,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  }
  bench('messageEvents + sseFrame for a 2 KB reply', () => {
    messageEvents(message).map(sseFrame).join('')
  })
})
