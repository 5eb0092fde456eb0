import { getModelInfo, textMessage, ValidationError } from '@contextkit/core'
import { AnthropicXmlFormatter } from '@contextkit/formatters'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { ProviderError } from '../provider/errors.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { anthropicProvider } from './anthropic-provider.js'

let runs = 0
const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string(), days: z.number().int().optional() }),
  execute: ({ city }) => {
    runs++
    return `Sunny in ${city}`
  },
})

const base = {
  model: 'claude-haiku-4-5',
  messages: [textMessage('user', 'Weather in Paris?')],
  tools: [weather],
}

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type)

describe('anthropicProvider with the real SDK against testkit', () => {
  test('thinking comes back with its signature and is replayed on the next call', async () => {
    const { provider, bodies } = await emulated([
      {
        thinking: 'The user wants Paris.',
        toolUse: { name: 'get_weather', input: { city: 'Paris' } },
      },
      'Sunny.',
    ])
    const run = runAgent({ provider, ...base, thinking: { enabled: true, budgetTokens: 2048 } })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    const first = result.messages[0]!
    expect(first.content[0]).toMatchObject({ type: 'thinking', thinking: 'The user wants Paris.' })
    const signature = first.content[0]?.type === 'thinking' ? first.content[0].signature : undefined
    expect(signature).toMatch(/^sig_/)
    expect(bodies()[0]?.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
    const replayed = bodies()[1]?.messages[1]?.content
    expect(Array.isArray(replayed) && replayed[0]).toEqual({
      type: 'thinking',
      thinking: 'The user wants Paris.',
      signature,
    })
    expect(
      ofType(events, 'thinking-delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('The user wants Paris.')
  })

  test('tool input streams as partial JSON (1-byte writes) and arrives whole', async () => {
    const { provider } = await emulated(
      [{ toolUse: { name: 'get_weather', input: { city: 'Paris', days: 3 } } }, 'ok'],
      { transport: { writeSize: 1 } },
    )
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    await run.result
    const deltas = ofType(events, 'tool-call-delta')
    expect(deltas.length).toBeGreaterThan(1)
    expect(JSON.parse(deltas.map((d) => d.partialJson).join(''))).toEqual({
      city: 'Paris',
      days: 3,
    })
    expect(ofType(events, 'tool-call')[0]?.call.input).toEqual({ city: 'Paris', days: 3 })
    expect(ofType(events, 'tool-call-start')[0]?.name).toBe('get_weather')
  })

  test('usage is summed with the cache counters and reported per call', async () => {
    const usage = {
      input_tokens: 100,
      output_tokens: 20,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 40,
    }
    const { provider } = await emulated([
      { toolUse: { name: 'get_weather', input: { city: 'Paris' } }, usage },
      { text: 'ok', usage },
    ])
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.usage).toMatchObject({ input: 200, output: 40, cacheRead: 600, cacheWrite: 80 })
    expect(ofType(events, 'usage').map((e) => e.usage)).toMatchObject([
      { input: 100, output: 20, cacheRead: 300, cacheWrite: 40 },
      { input: 100, output: 20, cacheRead: 300, cacheWrite: 40 },
    ])
  })

  test('an overloaded error inside a 200 stream is retried; the tool runs exactly once', async () => {
    runs = 0
    const { provider, bodies } = await emulated([
      {
        text: 'Checking the weather.',
        toolUse: { name: 'get_weather', input: { city: 'Paris' } },
        fault: { kind: 'stream-error', afterEvents: 7 },
      },
      { text: 'Checking the weather.', toolUse: { name: 'get_weather', input: { city: 'Paris' } } },
      'Sunny, as it says.',
    ])
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(runs).toBe(1)
    expect(bodies()).toHaveLength(3)
    expect(bodies()[1]).toEqual(bodies()[0])
    const retry = ofType(events, 'retry')
    expect(retry).toHaveLength(1)
    expect(retry[0]).toMatchObject({ source: 'provider', attempt: 1, step: 1 })
    expect(retry[0]?.error).toMatchObject({ errorType: 'overloaded_error', retryable: true })
    // the partial reply was thrown away: one assistant message per call, text not doubled
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant'])
    expect(result.messages[0]?.content[0]).toEqual({ type: 'text', text: 'Checking the weather.' })
  })

  test('a connection reset mid-stream is retried the same way', async () => {
    runs = 0
    const { provider, bodies } = await emulated([
      { text: 'Partial answer', fault: { kind: 'reset', afterEvents: 4 } },
      { toolUse: { name: 'get_weather', input: { city: 'Paris' } } },
      { text: 'Done.', fault: { kind: 'reset', afterEvents: 3 } },
      'Done.',
    ])
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(result.text).toBe('Done.')
    expect(runs).toBe(1)
    expect(bodies()).toHaveLength(4)
    expect(
      ofType(events, 'retry').map((e) => [e.step, (e.error as ProviderError).errorType]),
    ).toEqual([
      [1, 'connection'],
      [2, 'connection'],
    ])
  })

  test('after the last retry the run stops with a typed ProviderError (type, request id)', async () => {
    const fault = {
      kind: 'stream-error' as const,
      afterEvents: 2,
      errorType: 'api_error',
      message: 'Internal',
    }
    const { client, bodies } = await emulated([
      { text: 'x', fault },
      { text: 'x', fault },
    ])
    const provider = anthropicProvider({ client, maxStreamRetries: 1, retryDelayMs: 1 })
    const result = await runAgent({ provider, ...base }).result
    expect(result.stopReason).toBe('error')
    expect(bodies()).toHaveLength(2)
    const error = result.error as ProviderError
    expect(ProviderError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ errorType: 'api_error', status: undefined, retryable: true })
    expect(error.message).toContain('Internal')
    expect(error.requestId).toMatch(/^req_/)
  })

  test('HTTP errors: the SDK retries a 529 itself; a 400 is a ProviderError with status and request id', async () => {
    const retried = await emulated(
      [{ fault: { kind: 'http', status: 529, retryAfterMs: 1 } }, 'After the retry.'],
      { sdkRetries: 2 },
    )
    const run = runAgent({ provider: retried.provider, ...base })
    const events = await collect(run.events)
    expect((await run.result).text).toBe('After the retry.')
    expect(ofType(events, 'retry')).toEqual([])
    expect(retried.emulator.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual([
      '0',
      '1',
    ])

    const bad = await emulated(['never'])
    // our side believes the model takes 10M output tokens; the API says otherwise
    const huge = { ...getModelInfo('claude-haiku-4-5'), maxOutput: 10_000_000 }
    const result = await runAgent({
      provider: bad.provider,
      ...base,
      model: huge,
      maxTokens: 10_000_000,
    }).result
    expect(result.stopReason).toBe('error')
    const error = result.error as ProviderError
    expect(error).toMatchObject({
      status: 400,
      errorType: 'invalid_request_error',
      retryable: false,
    })
    expect(error.requestId).toBe(bad.emulator.requests[0]?.requestId)
  })

  test('the XML transcript format: a tool call parsed from text, its stop sequence put back', async () => {
    runs = 0
    const { provider, bodies } = await emulated([
      'Checking.\n<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</function_calls>\nignored after the stop',
      'It is sunny in Paris.',
    ])
    const result = await runAgent({
      provider,
      ...base,
      formatter: new AnthropicXmlFormatter({ toolMode: 'xml' }),
    }).result
    expect(runs).toBe(1)
    expect(result.stopReason).toBe('end_turn')
    const call = result.messages[0]?.content.find((b) => b.type === 'tool_call')
    expect(call).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } })
    expect(bodies()[0]?.stop_sequences).toContain('</function_calls>')
    expect(wireText(bodies()[1]?.messages.at(-1))).toContain('Sunny in Paris')
  })

  test('an abort during the retry wait ends the run at once', async () => {
    const { client } = await emulated([
      { text: 'x', fault: { kind: 'stream-error', afterEvents: 2 } },
    ])
    const provider = anthropicProvider({ client, retryDelayMs: 5_000 })
    const run = runAgent({ provider, ...base })
    for await (const e of run.events) if (e.type === 'retry') break
    const t0 = performance.now()
    run.abort()
    expect((await run.result).stopReason).toBe('aborted')
    expect(performance.now() - t0).toBeLessThan(100)
  })

  test('options are checked', () => {
    expect(() => anthropicProvider({ client: {} as never })).toThrow(ValidationError)
    expect(() =>
      anthropicProvider({ client: { messages: { create() {} } } as never, maxStreamRetries: -1 }),
    ).toThrow(ValidationError)
  })
})
