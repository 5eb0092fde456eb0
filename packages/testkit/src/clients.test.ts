/**
 * The clients users already have, unchanged but for the base URL: the Vercel AI SDK
 * (`ai` + `@ai-sdk/anthropic`) and LangChain's `ChatAnthropic`. If a release of either starts
 * sending or expecting something the emulator does not, these tests say so.
 */
import { createAnthropic } from '@ai-sdk/anthropic'
import { ChatAnthropic } from '@langchain/anthropic'
import type { AIMessageChunk } from '@langchain/core/messages'
import { generateText, type SystemModelMessage, stepCountIs, streamText, tool } from 'ai'
import { afterEach, describe, expect, test } from 'vitest'
import * as z from 'zod'
import {
  type AnthropicEmulator,
  type AnthropicEmulatorOptions,
  startAnthropicEmulator,
} from './index.js'

const open: AnthropicEmulator[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()))
})

async function start(script: AnthropicEmulatorOptions['script']): Promise<AnthropicEmulator> {
  const emu = await startAnthropicEmulator({ script })
  open.push(emu)
  return emu
}

/** A model both clients size `max_tokens` for within the emulator's limit. */
const MODEL = 'claude-haiku-4-5'
/** 5,000 tokens: above Haiku 4.5's 4,096-token cache minimum. */
const LONG_SYSTEM = 'You are a careful assistant. '.repeat(690).slice(0, 20_000)

const weather = tool({
  description: 'Current weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
})

describe('Vercel AI SDK (ai + @ai-sdk/anthropic)', () => {
  const provider = (emu: AnthropicEmulator) =>
    createAnthropic({ apiKey: 'test-key', baseURL: `${emu.url}/v1` })

  test('generateText: text, finish reason, usage; the request carries x-api-key', async () => {
    const emu = await start(['Hello from the emulator.'])
    const result = await generateText({
      model: provider(emu)(MODEL),
      instructions: 'Be brief.',
      prompt: 'Say hello.',
    })
    expect(result.text).toBe('Hello from the emulator.')
    expect(result.finishReason).toBe('stop')
    expect(result.usage.outputTokens).toBe(Math.ceil('Hello from the emulator.'.length / 4))
    expect(result.usage.inputTokens).toBe(3 + 3 + 3) // 'Be brief.' + 'Say hello.' + 3 framing
    const rec = emu.requests[0]!
    expect(rec.headers['x-api-key']).toBe('test-key')
    expect(rec.body).toMatchObject({ model: MODEL, system: [{ type: 'text', text: 'Be brief.' }] })
  })

  test('streamText: text deltas arrive in order and add up to the reply', async () => {
    const reply = 'Streaming works, one small delta after another, to the very end.'
    const emu = await start([{ text: reply, transport: { deltaChars: 5 } }])
    const result = streamText({ model: provider(emu)(MODEL), prompt: 'Stream please.' })
    const deltas: string[] = []
    for await (const d of result.textStream) deltas.push(d)
    expect(deltas.length).toBeGreaterThanOrEqual(Math.ceil(reply.length / 5))
    expect(deltas.join('')).toBe(reply)
    expect(await result.finishReason).toBe('stop')
    expect(emu.requests[0]!.body).toMatchObject({ stream: true })
  })

  test('a tool loop: the SDK runs the tool and sends the result back', async () => {
    const emu = await start([
      { text: 'Let me check.', toolUse: { name: 'weather', input: { city: 'Paris' } } },
      (req) => {
        const last = req.messages.at(-1)?.content[0]
        return `Answer: ${last?.type === 'tool_result' ? String(last.content) : 'none'}`
      },
    ])
    const result = await generateText({
      model: provider(emu)(MODEL),
      prompt: 'Weather in Paris?',
      tools: { weather },
      stopWhen: stepCountIs(3),
    })
    expect(result.steps).toHaveLength(2)
    expect(result.steps[0]!.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ['weather', { city: 'Paris' }],
    ])
    expect(result.text).toBe('Answer: sunny in Paris')
    const second = emu.requests[1]!.body as { messages: { role: string; content: unknown[] }[] }
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(second.messages[2]!.content[0]).toMatchObject({
      type: 'tool_result',
      content: 'sunny in Paris',
    })
  })

  test('reasoning: thinking streams as reasoning and its signature goes back with the tool result', async () => {
    const emu = await start([
      {
        thinking: { thinking: 'The user wants the weather; call the tool.', signature: 'sig-1' },
        toolUse: { name: 'weather', input: { city: 'Oslo' } },
      },
      { thinking: 'Now answer.', text: 'It is sunny in Oslo.' },
    ])
    const result = streamText({
      model: provider(emu)(MODEL),
      prompt: 'Weather in Oslo?',
      tools: { weather },
      stopWhen: stepCountIs(3),
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    })
    const reasoning: string[] = []
    for await (const part of result.fullStream)
      if (part.type === 'reasoning-delta') reasoning.push(part.text)
    expect(reasoning.join('')).toBe('The user wants the weather; call the tool.Now answer.')
    expect(await result.text).toBe('It is sunny in Oslo.')
    expect(emu.requests[0]!.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2048 },
    })
    const second = emu.requests[1]!.body as { messages: { content: Record<string, unknown>[] }[] }
    expect(second.messages[1]!.content[0]).toMatchObject({
      type: 'thinking',
      thinking: 'The user wants the weather; call the tool.',
      signature: 'sig-1',
    })
  })

  test('a 529 is retried after retry-after-ms, then answered', async () => {
    const emu = await start([
      { fault: { kind: 'http', status: 529, retryAfterMs: 1 } },
      'Recovered.',
    ])
    const result = await generateText({ model: provider(emu)(MODEL), prompt: 'Hi.', maxRetries: 2 })
    expect(result.text).toBe('Recovered.')
    expect(emu.requests.map((r) => r.status)).toEqual([529, 200])
  })

  test('a mid-stream error event reaches the caller as an error part after the partial text', async () => {
    const emu = await start([
      { text: 'Partial answer that will be cut.', fault: { kind: 'stream-error', afterEvents: 4 } },
    ])
    const errors: unknown[] = []
    const result = streamText({
      model: provider(emu)(MODEL),
      prompt: 'Hi.',
      onError: ({ error }) => void errors.push(error),
    })
    let text = ''
    const kinds: string[] = []
    for await (const part of result.fullStream) {
      kinds.push(part.type)
      if (part.type === 'text-delta') text += part.text
    }
    expect(text).toBe('Partial answer t') // message_start, ping, block start, one 16-char delta
    expect(kinds).toContain('error')
    expect(JSON.stringify(errors[0])).toContain('overloaded_error')
    expect(emu.requests).toHaveLength(1) // a 200 stream is not retried
  })

  test('cache usage fields: a system breakpoint is written, then read', async () => {
    const emu = await start(['first', 'second'])
    const model = provider(emu)(MODEL)
    // ai 7 takes the system prompt as `instructions`; a SystemModelMessage carries the breakpoint.
    const instructions: SystemModelMessage = {
      role: 'system',
      content: LONG_SYSTEM,
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    }
    const first = await generateText({ model, instructions, prompt: 'abcd' })
    expect(first.usage.inputTokenDetails).toEqual({
      noCacheTokens: 4,
      cacheWriteTokens: 5000,
      cacheReadTokens: 0,
    })
    expect(first.usage.inputTokens).toBe(5004)
    const second = streamText({ model, instructions, prompt: 'efgh' })
    await second.consumeStream()
    expect((await second.usage).inputTokenDetails).toEqual({
      noCacheTokens: 4,
      cacheWriteTokens: 0,
      cacheReadTokens: 5000,
    })
    expect(emu.cacheStats()).toMatchObject({ hits: 1, writes: 1, cacheReadInputTokens: 5000 })
  })
})

describe("LangChain's ChatAnthropic (@langchain/anthropic + @langchain/core)", () => {
  const chat = (emu: AnthropicEmulator) =>
    new ChatAnthropic({ model: MODEL, apiKey: 'test-key', anthropicApiUrl: emu.url, maxRetries: 0 })

  test('invoke: content, usage_metadata with cache details', async () => {
    const emu = await start(['Bonjour.', 'Encore.'])
    const llm = chat(emu)
    const system = [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }]
    const first = await llm.invoke([
      { role: 'system', content: system },
      { role: 'user', content: 'abcd' },
    ])
    expect(first.content).toBe('Bonjour.')
    expect(first.usage_metadata).toMatchObject({
      input_tokens: 5004,
      input_token_details: { cache_creation: 5000, cache_read: 0 },
    })
    const second = await llm.invoke([
      { role: 'system', content: system },
      { role: 'user', content: 'efgh' },
    ])
    expect(second.usage_metadata?.input_token_details).toMatchObject({
      cache_creation: 0,
      cache_read: 5000,
    })
    expect(emu.requests[0]!.headers['x-api-key']).toBe('test-key')
  })

  test('stream: chunks concatenate to the reply; streamed usage carries the cache read', async () => {
    const reply = 'Streaming through LangChain, chunk by chunk.'
    const emu = await start(() => ({ text: reply, transport: { deltaChars: 8 } }))
    const system = [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }]
    const stream = async () => {
      const chunks: AIMessageChunk[] = []
      const input = [
        { role: 'system', content: system },
        { role: 'user', content: 'Stream please.' },
      ]
      for await (const c of await chat(emu).stream(input)) chunks.push(c)
      return chunks
    }
    const chunks = await stream()
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(reply.length / 8))
    const merged = chunks.reduce((a, b) => a.concat(b))
    expect(merged.content).toBe(reply)
    expect(merged.usage_metadata?.input_token_details).toMatchObject({ cache_creation: 5000 })
    const again = (await stream()).reduce((a, b) => a.concat(b))
    expect(again.usage_metadata).toMatchObject({
      input_tokens: 5000 + 4 + 3,
      input_token_details: { cache_read: 5000, cache_creation: 0 },
    })
    expect(emu.requests[0]!.body).toMatchObject({ stream: true })
  })

  test('bound tools: the tool definition is sent and the call comes back as tool_calls', async () => {
    const emu = await start([
      { text: 'Calling.', toolUse: { name: 'get_weather', input: { city: 'Paris' } } },
    ])
    const llm = chat(emu).bindTools([
      {
        name: 'get_weather',
        description: 'Current weather in a city',
        schema: z.object({ city: z.string() }),
      },
    ])
    const reply = await llm.invoke('Weather in Paris?')
    expect(reply.tool_calls).toEqual([
      {
        name: 'get_weather',
        args: { city: 'Paris' },
        id: expect.stringMatching(/^toolu_/),
        type: 'tool_call',
      },
    ])
    const body = emu.requests[0]!.body as { tools: { name: string; input_schema: unknown }[] }
    expect(body.tools.map((t) => t.name)).toEqual(['get_weather'])
    expect(body.tools[0]!.input_schema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' } },
    })
  })
})
