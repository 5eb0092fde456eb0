// End to end: failures between the real SDK and testkit, and what the run makes of them.
import { textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { ProviderError } from '../provider/errors.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { anthropicProvider } from './anthropic-provider.js'

let runs = 0
const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
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
const call = { name: 'get_weather', input: { city: 'Paris' } }

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type)

describe('HTTP failures are the SDK’s to retry (configured, not duplicated)', () => {
  test('a 529 then success: the SDK retries (per the provider’s maxRetries), the provider does not', async () => {
    const { provider, emulator } = await emulated(
      [{ fault: { kind: 'http', status: 529, retryAfterMs: 1 } }, 'After the retry.'],
      { sdkRetries: 0, provider: { maxRetries: 2 } },
    )
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.text).toBe('After the retry.')
    expect(ofType(events, 'retry')).toEqual([])
    expect(emulator.requests.map((r) => [r.status, r.headers['x-stainless-retry-count']])).toEqual([
      [529, '0'],
      [200, '1'],
    ])
  })

  test('a 529 past the SDK’s retries: one typed error, no provider retry on top', async () => {
    const fault = { kind: 'http' as const, status: 529, retryAfterMs: 1 }
    const { provider, emulator } = await emulated([{ fault }, { fault }, { fault }, 'unused'], {
      provider: { maxRetries: 1 },
    })
    const result = await runAgent({ provider, ...base }).result
    expect(emulator.requests).toHaveLength(2)
    expect(result.stopReason).toBe('error')
    const error = result.error as ProviderError
    expect(ProviderError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ status: 529, errorType: 'overloaded_error', retryable: true })
    expect(error.requestId).toBe(emulator.requests[1]?.requestId)
    expect(error.cause).toBeDefined() // the SDK's error, kept as the cause only
  })
})

describe('a 200 stream that fails mid-way is the provider’s to retry', () => {
  test('overloaded mid-stream after a tool ran: the call is sent again, the tool runs exactly once', async () => {
    runs = 0
    const { provider, bodies } = await emulated([
      { text: 'Checking.', toolUse: call },
      {
        text: 'The weather in Paris is sunny today.',
        fault: { kind: 'stream-error', afterEvents: 4 },
      },
      'The weather in Paris is sunny today.',
    ])
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('The weather in Paris is sunny today.')
    expect(runs).toBe(1)
    expect(bodies()).toHaveLength(3)
    // the same request (tool result included) was sent again
    expect(bodies()[2]).toEqual(bodies()[1])
    const [retry] = ofType(events, 'retry')
    expect(retry).toMatchObject({ step: 2, source: 'provider', attempt: 1 })
    expect(retry?.error).toMatchObject({ errorType: 'overloaded_error', retryable: true })
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant'])
  })

  test('a connection reset in the middle of a tool call: nothing of it runs, the retry does', async () => {
    runs = 0
    // events: message_start, ping, text block (3), tool_use start, "" delta, first JSON piece
    const { provider, bodies } = await emulated([
      { text: 'Checking.', toolUse: call, fault: { kind: 'reset', afterEvents: 8 } },
      { text: 'Checking.', toolUse: call },
      'Sunny.',
    ])
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    expect(runs).toBe(1)
    expect(bodies()).toHaveLength(3)
    const retryAt = events.findIndex((e) => e.type === 'retry')
    const before = events.slice(0, retryAt)
    // the reset came while the tool call was streaming
    expect(before.some((e) => e.type === 'tool-call-start')).toBe(true)
    expect(before.some((e) => e.type === 'tool-call')).toBe(false)
    expect(ofType(events, 'retry')[0]?.error).toMatchObject({ errorType: 'connection' })
    expect(ofType(events, 'tool-call')).toHaveLength(1)
    expect(ofType(events, 'tool-result')).toHaveLength(1)
  })

  test('a stalled stream hits the idle timeout and is sent again', async () => {
    const { provider, bodies } = await emulated(
      [{ text: 'a'.repeat(64), transport: { chunkDelayMs: 10_000 } }, 'Fresh answer.'],
      { provider: { idleTimeoutMs: 50 } },
    )
    const t0 = performance.now()
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    const result = await run.result
    expect(performance.now() - t0).toBeLessThan(5_000)
    expect(result.text).toBe('Fresh answer.')
    expect(bodies()).toHaveLength(2)
    expect(ofType(events, 'retry')[0]?.error).toMatchObject({
      errorType: 'idle_timeout',
      retryable: true,
    })
  })

  test('never a hang: a stream that stays silent ends the run with a typed error', async () => {
    const { provider } = await emulated([{ text: 'x', transport: { chunkDelayMs: 60_000 } }], {
      provider: { idleTimeoutMs: 40, maxStreamRetries: 0 },
    })
    const result = await runAgent({ provider, ...base }).result
    expect(result.stopReason).toBe('error')
    expect(result.error).toMatchObject({ errorType: 'idle_timeout' })
    expect(ProviderError.isInstance(result.error)).toBe(true)
  })

  test('the last try fails: stopReason error with the type and request id; backoff grows with jitter, bounded', async () => {
    const fault = { kind: 'stream-error' as const, afterEvents: 2, errorType: 'api_error' }
    const { client, emulator } = await emulated([
      { text: 'x', fault },
      { text: 'x', fault },
      { text: 'x', fault },
      { text: 'x', fault },
    ])
    const provider = anthropicProvider({
      client,
      maxStreamRetries: 3,
      retryDelayMs: 20,
      maxRetryDelayMs: 50,
      random: () => 0,
    })
    const run = runAgent({ provider, ...base })
    const events = await collect(run.events)
    const result = await run.result
    expect(ofType(events, 'retry').map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 15],
      [2, 30],
      [3, 50],
    ])
    expect(emulator.requests).toHaveLength(4)
    expect(result.stopReason).toBe('error')
    const error = result.error as ProviderError
    expect(error).toMatchObject({ errorType: 'api_error', status: undefined, retryable: true })
    expect(error.requestId).toBe(emulator.requests[3]?.requestId)
  })
})
