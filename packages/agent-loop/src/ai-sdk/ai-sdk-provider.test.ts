import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { getModelInfo, textMessage, ValidationError } from '@contextkit/core'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { runAgent } from '../run/run-agent.js'
import { collect, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { type AiSdkLanguageModel, aiSdkProvider } from './ai-sdk-provider.js'

const model = getModelInfo('claude-haiku-4-5')

async function emulator(script: Script) {
  const emu = await startAnthropicEmulator({ script })
  onCleanup(() => emu.close())
  return emu
}

let runs = 0
const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up',
  input: z.object({ word: z.string() }),
  execute: ({ word }) => {
    runs++
    return `${word}: a small furry animal`
  },
})

const request = (over: Partial<ProviderRequest> = {}): ProviderRequest => ({
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  system: [],
  stopSequences: [],
  cacheMarkersApplied: 0,
  warnings: [],
  model,
  maxTokens: 100,
  ...over,
})

async function events(provider: ReturnType<typeof aiSdkProvider>, signal?: AbortSignal) {
  const out: ProviderEvent[] = []
  for await (const e of provider.stream(request(), {
    signal: signal ?? new AbortController().signal,
  }))
    out.push(e)
  return out
}

describe('aiSdkProvider', () => {
  test('over @ai-sdk/anthropic against testkit: a tool step, its result, the answer', async () => {
    runs = 0
    const emu = await emulator([
      { thinking: 'Need the word.', toolUse: { name: 'lookup', input: { word: 'wombat' } } },
      'A wombat is a small furry animal.',
    ])
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'test-key' })
    const run = runAgent({
      provider: aiSdkProvider(anthropic('claude-haiku-4-5') as unknown as AiSdkLanguageModel, {
        retryDelayMs: 1,
      }),
      model,
      system: 'Be brief.',
      messages: [textMessage('user', 'What is a wombat?')],
      tools: [lookup],
    })
    await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('A wombat is a small furry animal.')
    expect(runs).toBe(1)
    const first = result.messages[0]!
    expect(first.content.find((b) => b.type === 'thinking')).toMatchObject({
      thinking: 'Need the word.',
    })
    expect(first.content.find((b) => b.type === 'tool_call')).toMatchObject({
      name: 'lookup',
      input: { word: 'wombat' },
    })
    const second = emu.requests[1]!.body as {
      messages: { role: string; content: { type: string }[] }[]
      system: unknown
    }
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(second.messages[2]!.content[0]!.type).toBe('tool_result')
    expect(result.usage.input).toBeGreaterThan(0)
  })

  test("over the AI SDK's own @ai-sdk/openai-compatible against testkit's chat endpoint", async () => {
    runs = 0
    const emu = await emulator([
      {
        toolUse: [
          { name: 'lookup', input: { word: 'a' } },
          { name: 'lookup', input: { word: 'b' } },
        ],
      },
      'Both looked up.',
    ])
    const compatible = createOpenAICompatible({
      name: 'testkit',
      baseURL: `${emu.url}/v1`,
      apiKey: 'k',
      includeUsage: true,
    })
    const run = runAgent({
      provider: aiSdkProvider(
        compatible.chatModel('claude-haiku-4-5') as unknown as AiSdkLanguageModel,
      ),
      model,
      messages: [textMessage('user', 'Look up a and b.')],
      tools: [lookup],
    })
    await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('Both looked up.')
    expect(runs).toBe(2)
    expect(result.usage.input).toBeGreaterThan(0)
    const sent = emu.requests[1]!.body as { messages: { role: string }[] }
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool'])
  })

  test("the AI SDK's mock model: stream parts, v4 usage with cache figures, finish reason", async () => {
    const mock = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            const parts: LanguageModelV4StreamPart[] = [
              { type: 'stream-start', warnings: [] },
              { type: 'reasoning-start', id: 'r' },
              { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
              {
                type: 'reasoning-end',
                id: 'r',
                providerMetadata: { anthropic: { signature: 'sig' } },
              },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Hel' },
              { type: 'text-delta', id: 't', delta: 'lo' },
              { type: 'text-end', id: 't' },
              {
                type: 'finish',
                finishReason: { unified: 'length', raw: 'max_tokens' },
                usage: {
                  inputTokens: { total: 120, noCache: 20, cacheRead: 90, cacheWrite: 10 },
                  outputTokens: { total: 7, text: 5, reasoning: 2 },
                },
              },
            ]
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }),
    })
    const out = await events(aiSdkProvider(mock as unknown as AiSdkLanguageModel))
    expect(out.map((e) => e.type)).toEqual([
      'thinking-delta',
      'thinking-end',
      'text-delta',
      'text-delta',
      'finish',
    ])
    expect(out[1]).toEqual({ type: 'thinking-end', signature: 'sig' })
    expect(out.at(-1)).toEqual({
      type: 'finish',
      stopReason: 'max_tokens',
      usage: { input: 20, output: 7, cacheRead: 90, cacheWrite: 10 },
    })
  })

  test('a retryable failure is retried with a retry event; a 400 is one typed error', async () => {
    const emu = await emulator([
      { text: 'partial', fault: { kind: 'stream-error', afterEvents: 3 } },
      'whole answer',
      { fault: { kind: 'http', status: 400, message: 'nope' } },
    ])
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
    const provider = aiSdkProvider(anthropic('claude-haiku-4-5') as unknown as AiSdkLanguageModel, {
      retryDelayMs: 1,
    })
    const ok = await events(provider)
    expect(ok.filter((e) => e.type === 'retry')).toHaveLength(1)
    expect(ok.at(-1)).toMatchObject({ type: 'finish' })
    expect(
      ok
        .filter((e) => e.type === 'text-delta')
        .map((e) => (e.type === 'text-delta' ? e.text : ''))
        .join(''),
    ).toContain('whole answer')
    const bad = (await events(provider)).at(-1)
    expect(bad).toMatchObject({ type: 'error', error: { status: 400, retryable: false } })
  })

  test('not a LanguageModel, or an unknown option: a ValidationError naming it', () => {
    expect(() => aiSdkProvider({} as never)).toThrow(ValidationError)
    const mock = new MockLanguageModelV4({})
    expect(() =>
      aiSdkProvider(mock as unknown as AiSdkLanguageModel, { retries: 3 } as never),
    ).toThrow(/retries/)
  })
})
