import { getModelInfo, type ModelInfo, textMessage, ValidationError } from '@contextkit/core'
import { type Script, startAnthropicEmulator, type TransportOptions } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { ModelProvider, ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import { runAgent } from '../run/run-agent.js'
import { collect, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { type OpenAIChatProviderOptions, openAIChatProvider } from './chat-provider.js'

const model: ModelInfo = getModelInfo('claude-haiku-4-5')

async function emulated(
  script: Script,
  options: Partial<OpenAIChatProviderOptions> = {},
  transport?: TransportOptions,
) {
  const emulator = await startAnthropicEmulator({ script, ...(transport ? { transport } : {}) })
  onCleanup(() => emulator.close())
  const provider = openAIChatProvider({
    baseURL: `${emulator.url}/v1`,
    apiKey: 'test-key',
    retryDelayMs: 1,
    ...options,
  })
  const bodies = () =>
    emulator.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as Record<string, unknown>)
  return { emulator, provider, bodies }
}

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

async function events(provider: ModelProvider, req = request(), signal?: AbortSignal) {
  const out: ProviderEvent[] = []
  for await (const e of provider.stream(req, { signal: signal ?? new AbortController().signal }))
    out.push(e)
  return out
}

function errorOf(out: ProviderEvent[]): ProviderError {
  const last = out.at(-1)
  expect(last?.type).toBe('error')
  const error = (last as Extract<ProviderEvent, { type: 'error' }>).error
  expect(ProviderError.isInstance(error)).toBe(true)
  return error
}

let runs: Record<string, number> = {}
const tool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    input: z.object({ q: z.string() }),
    execute: ({ q }) => {
      runs[name] = (runs[name] ?? 0) + 1
      return `${name}:${q}`
    },
  })

describe('openAIChatProvider against testkit /v1/chat/completions', () => {
  test('a run with two parallel tool calls streamed in interleaved pieces, then the answer', async () => {
    runs = {}
    const { provider, bodies } = await emulated(
      [
        {
          thinking: 'Both at once.',
          text: 'Looking up.',
          toolUse: [
            { name: 'alpha', input: { q: 'first, with enough text to be split' } },
            { name: 'beta', input: { q: 'second, also split into pieces' } },
          ],
        },
        'Done: both answered.',
      ],
      {},
      { deltaChars: 3 },
    )
    const run = runAgent({
      provider,
      model,
      system: 'Be brief.',
      messages: [textMessage('user', 'Ask both.')],
      tools: [tool('alpha'), tool('beta')],
    })
    const all = await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    expect(result.stopReason).toBe('end_turn')
    expect(result.text).toBe('Done: both answered.')
    expect(runs).toEqual({ alpha: 1, beta: 1 })
    const calls = result.messages[0]!.content.filter((b) => b.type === 'tool_call')
    expect(calls.map((c) => (c.type === 'tool_call' ? [c.name, c.input] : []))).toEqual([
      ['alpha', { q: 'first, with enough text to be split' }],
      ['beta', { q: 'second, also split into pieces' }],
    ])
    expect(result.messages[0]!.content.find((b) => b.type === 'thinking')).toMatchObject({
      thinking: 'Both at once.',
    })
    expect(all.filter((e) => e.type === 'tool-call')).toHaveLength(2)
    const [first, second] = bodies()
    expect(first).toMatchObject({
      model: 'claude-haiku-4-5',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Ask both.' },
      ],
    })
    expect((first!.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'alpha',
      'beta',
    ])
    const sent = second!.messages as Record<string, unknown>[]
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool'])
    expect(sent[3]).toMatchObject({
      role: 'tool',
      content: 'alpha:first, with enough text to be split',
    })
    expect(result.usage.input).toBeGreaterThan(0)
  })

  test('usage: prompt_tokens minus cached_tokens is input, cached_tokens is cacheRead', async () => {
    const long = 'All work and no play. '.repeat(1500)
    const { provider } = await emulated(['ok', 'ok'])
    const req = request({ messages: [{ role: 'user', content: [{ type: 'text', text: long }] }] })
    const a = (await events(provider, req)).at(-1)
    const b = (await events(provider, req)).at(-1)
    expect(a).toMatchObject({ type: 'finish', usage: { cacheRead: 0 } })
    if (a?.type !== 'finish' || b?.type !== 'finish') throw new Error('no finish')
    expect(b.usage.cacheRead).toBeGreaterThan(0)
    expect(b.usage.input + b.usage.cacheRead).toBe(a.usage.input)
  })

  test('a stream that fails mid-way is retried once, and no tool of the partial reply runs', async () => {
    runs = {}
    const { provider } = await emulated([
      {
        toolUse: { name: 'alpha', input: { q: 'x' } },
        fault: { kind: 'stream-error', afterEvents: 2, errorType: 'server_error' },
      },
      { toolUse: { name: 'alpha', input: { q: 'x' } } },
      'All done.',
    ])
    const run = runAgent({
      provider,
      model,
      messages: [textMessage('user', 'go')],
      tools: [tool('alpha')],
    })
    const all = await collect(run.events)
    const result = await run.result
    expect(result.text).toBe('All done.')
    expect(runs).toEqual({ alpha: 1 })
    expect(all.filter((e) => e.type === 'retry')).toHaveLength(1)
  })

  test('HTTP 429 honours retry-after-ms and is retried; 400 is not', async () => {
    const { provider, emulator } = await emulated([
      { fault: { kind: 'http', status: 429, retryAfterMs: 5 } },
      'fine',
      { fault: { kind: 'http', status: 400, message: 'bad thing' } },
    ])
    const ok = await events(provider)
    expect(ok.find((e) => e.type === 'retry')).toMatchObject({ delayMs: 5 })
    expect(ok.at(-1)).toMatchObject({ type: 'finish', stopReason: 'end_turn' })
    const error = errorOf(await events(provider))
    expect(error).toMatchObject({ status: 400, retryable: false })
    expect(error.message).toContain('bad thing')
    expect(emulator.requests).toHaveLength(3)
  })

  test('a prompt over the window is errorType context_length_exceeded, not retried', async () => {
    const emulator = await startAnthropicEmulator({
      models: [{ id: 'tiny', maxInputTokens: 50, maxTokens: 100 }],
      script: ['never'],
    })
    onCleanup(() => emulator.close())
    const provider = openAIChatProvider({ baseURL: `${emulator.url}/v1` })
    const big = request({
      model: { ...model, id: 'tiny' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'word '.repeat(500) }] }],
    })
    const error = errorOf(await events(provider, big))
    expect(error).toMatchObject({
      status: 400,
      errorType: 'context_length_exceeded',
      retryable: false,
    })
    expect(emulator.requests).toHaveLength(1)
  })

  test('a refused connection names the address; retries are bounded', async () => {
    const provider = openAIChatProvider({
      baseURL: 'http://127.0.0.1:1/v1',
      maxRetries: 1,
      retryDelayMs: 1,
    })
    const out = await events(provider)
    expect(out.filter((e) => e.type === 'retry')).toHaveLength(1)
    const error = errorOf(out)
    expect(error.errorType).toBe('connection')
    expect(error.message).toContain('http://127.0.0.1:1/v1/chat/completions')
  })

  test('abort mid-stream ends with an aborted error and runs no tool', async () => {
    runs = {}
    const { provider } = await emulated(
      [{ text: 'x'.repeat(400), toolUse: { name: 'alpha', input: { q: 'x' } } }],
      {},
      { deltaChars: 4, chunkDelayMs: 5 },
    )
    const controller = new AbortController()
    const out: ProviderEvent[] = []
    for await (const e of provider.stream(request(), { signal: controller.signal })) {
      out.push(e)
      if (out.length === 3) controller.abort()
    }
    expect(errorOf(out).errorType).toBe('aborted')
    expect(out.some((e) => e.type === 'tool-call-end')).toBe(false)
  })

  test('images: user images as data URLs; tool-result images moved to a user message', async () => {
    const { provider, bodies } = await emulated(['seen'])
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' },
    }
    const out = await events(
      provider,
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Look' }, image] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'shot', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: [image] }] },
        ],
      }),
    )
    expect(out.find((e) => e.type === 'warning')).toMatchObject({
      code: 'openai_tool_images_moved',
    })
    const sent = bodies()[0]!.messages as Record<string, unknown>[]
    expect(sent[0]).toMatchObject({
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    })
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
  })

  test('bad options are a ValidationError naming the option; unknown keys too', () => {
    expect(() => openAIChatProvider({ baseURL: 'ftp://x' })).toThrow(ValidationError)
    expect(() => openAIChatProvider({ maxRetries: -1 })).toThrow(/maxRetries/)
    expect(() => openAIChatProvider({ baseUrl: 'http://x' } as never)).toThrow(/baseUrl/)
  })
})
