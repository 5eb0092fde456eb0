// otelTrace against the real OpenTelemetry SDK (in-memory exporter, the async-hooks context
// manager) and the GenAI conventions package: spans are started when their work starts and are
// the active context while it runs, so what a tool or the provider starts itself nests under them.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { trace } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions'
import * as semconv from '@opentelemetry/semantic-conventions/incubating'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { openAIChatProvider } from '../openai/chat-provider.js'
import { runAgent } from '../run/run-agent.js'
import { emulated, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { otelTrace } from './otel-trace.js'
import { otelHarness } from './test-otel.js'

const { exporter, tracer } = otelHarness('otel-nesting.test')

const OP = semconv.ATTR_GEN_AI_OPERATION_NAME

/**
 * `fetch` as an HTTP client instrumentation wraps it: a client span started in the active
 * context (`context.active()`, as `@opentelemetry/instrumentation-undici` does) around the call.
 */
const instrumentedFetch: typeof fetch = (input, init) => {
  const method = init?.method ?? 'GET'
  return tracer.startActiveSpan(`HTTP ${method}`, { kind: 2 }, async (span) => {
    try {
      return await fetch(input, init)
    } finally {
      span.end()
    }
  })
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name)
const parentOf = (s: ReadableSpan | undefined) => s?.parentSpanContext?.spanId
const idOf = (s: ReadableSpan | undefined) => s?.spanContext().spanId

describe('otelTrace: spans nest', () => {
  test('a tool’s own spans sit under its execute_tool span, the provider’s HTTP under its chat span, all under invoke_agent', async () => {
    const emulator = await startAnthropicEmulator({
      script: [{ toolUse: { name: 'lookup', input: { word: 'alpha' }, id: 'call_1' } }, 'Found.'],
    })
    onCleanup(() => emulator.close())
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look a word up in the dictionary service',
      input: z.object({ word: z.string() }),
      // the tool's own work: a query span and an HTTP call, each in the active context
      execute: async ({ word }) => {
        await tracer.startActiveSpan('dictionary.query', async (span) => {
          await instrumentedFetch(`${emulator.url}/v1/models`)
          span.end()
        })
        return `${word}: found`
      },
    })
    const run = runAgent({
      provider: openAIChatProvider({
        baseURL: `${emulator.url}/v1`,
        apiKey: 'test',
        fetch: instrumentedFetch,
      }),
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Look up alpha')],
      tools: [lookup],
      trace: otelTrace(tracer),
    })
    expect((await run.result).stopReason).toBe('end_turn')
    const spans = exporter.getFinishedSpans()
    const [agent] = spans.filter((s) => s.attributes[OP] === 'invoke_agent')
    const chats = spans.filter((s) => s.attributes[OP] === 'chat')
    const [tool] = spans.filter((s) => s.attributes[OP] === 'execute_tool')
    const [query] = byName(spans, 'dictionary.query')
    const posts = byName(spans, 'HTTP POST')
    const [get] = byName(spans, 'HTTP GET')
    expect(chats).toHaveLength(2)
    expect(posts).toHaveLength(2)
    // invoke_agent ← chat ← HTTP POST (each model call's own request)
    for (const chat of chats) expect(parentOf(chat)).toBe(idOf(agent))
    expect(posts.map(parentOf).sort()).toEqual(chats.map(idOf).sort())
    // invoke_agent ← execute_tool ← dictionary.query ← HTTP GET
    expect(parentOf(tool)).toBe(idOf(agent))
    expect(parentOf(query)).toBe(idOf(tool))
    expect(parentOf(get)).toBe(idOf(query))
    // one trace, and the tool's span covers its work
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1)
    // The SDK takes a span's start from Date.now() (whole milliseconds) and its end as the start
    // plus a performance.now() duration, so two spans' times compare to within 1 ms only.
    const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6
    expect(ms(tool!.startTime)).toBeLessThanOrEqual(ms(query!.startTime) + 1)
    expect(ms(tool!.endTime)).toBeGreaterThanOrEqual(ms(query!.endTime) - 1)
    // the provider name comes from the provider, server.* from its base URL
    expect(chats[0]?.attributes).toMatchObject({
      [semconv.ATTR_GEN_AI_PROVIDER_NAME]: semconv.GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
      [ATTR_SERVER_ADDRESS]: '127.0.0.1',
      [ATTR_SERVER_PORT]: Number(new URL(emulator.url).port),
      [semconv.ATTR_GEN_AI_RESPONSE_MODEL]: 'claude-haiku-4-5',
    })
    expect(String(chats[0]?.attributes[semconv.ATTR_GEN_AI_RESPONSE_ID])).toMatch(/^chatcmpl-/)
    expect(agent?.attributes[semconv.ATTR_GEN_AI_PROVIDER_NAME]).toBe('openai')
    expect(trace.getActiveSpan()).toBeUndefined()
  })

  test('a failed tool call’s span has an exception event with the error', async () => {
    const { provider: model } = await emulated([
      { toolUse: { name: 'broken', input: {}, id: 'toolu_x' } },
      'It failed, sorry.',
    ])
    const broken = defineTool({
      name: 'broken',
      description: 'Always fails',
      input: z.object({}),
      execute: () => {
        throw new Error('disk on fire')
      },
    })
    const run = runAgent({
      provider: model,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Try it')],
      tools: [broken],
      trace: otelTrace(tracer),
    })
    await run.result
    const [tool] = exporter.getFinishedSpans().filter((s) => s.attributes[OP] === 'execute_tool')
    expect(tool?.status.code).toBe(2)
    const [exception] = tool!.events.filter((e) => e.name === 'exception')
    expect(exception?.attributes).toMatchObject({
      [semconv.ATTR_EXCEPTION_TYPE]: 'agent_loop_tool_failed',
      [semconv.ATTR_EXCEPTION_MESSAGE]: expect.stringContaining('disk on fire'),
    })
    expect(tool?.attributes[semconv.ATTR_GEN_AI_TOOL_DESCRIPTION]).toBe('Always fails')
  })

  test('a model call the provider sends again has a contextkit.retry event per retry and counts its attempts', async () => {
    const { provider: model, emulator } = await emulated(
      [{ text: 'Hello there.', fault: { kind: 'stream-error', afterEvents: 3 } }, 'Hello there.'],
      { provider: { retryDelayMs: 1 } },
    )
    const run = runAgent({
      provider: model,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Hi')],
      trace: otelTrace(tracer),
    })
    expect((await run.result).text).toBe('Hello there.')
    expect(emulator.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(2)
    const [chat] = exporter.getFinishedSpans().filter((s) => s.attributes[OP] === 'chat')
    expect(chat?.attributes['contextkit.attempts']).toBe(2)
    const retries = chat!.events.filter((e) => e.name === 'contextkit.retry')
    expect(retries).toHaveLength(1)
    expect(retries[0]?.attributes).toMatchObject({ attempt: 2, 'error.type': expect.any(String) })
  })

  test('the recommended attributes: provider by default, response id and model, max tokens, server, session, tool description', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'otel-attrs-'))
    onCleanup(() => rm(dir, { recursive: true, force: true }))
    const { provider: model, emulator } = await emulated([
      { toolUse: { name: 'echo', input: { text: 'x' } } },
      'Done.',
    ])
    const echo = defineTool({
      name: 'echo',
      description: 'Say the text back',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    })
    const run = runAgent({
      provider: model,
      model: 'claude-haiku-4-5',
      maxTokens: 512,
      messages: [textMessage('user', 'Echo x')],
      tools: [echo],
      session: { store: jsonlSessionStore(dir, { fsync: false }), id: 'chat-42' },
      trace: otelTrace(tracer),
    })
    await run.result
    const spans = exporter.getFinishedSpans()
    const [agent] = spans.filter((s) => s.attributes[OP] === 'invoke_agent')
    const chats = spans.filter((s) => s.attributes[OP] === 'chat')
    const [tool] = spans.filter((s) => s.attributes[OP] === 'execute_tool')
    expect(agent?.attributes).toMatchObject({
      [semconv.ATTR_GEN_AI_PROVIDER_NAME]: semconv.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
      [semconv.ATTR_GEN_AI_CONVERSATION_ID]: 'chat-42',
    })
    expect(chats).toHaveLength(2)
    for (const chat of chats) {
      expect(chat.attributes).toMatchObject({
        [semconv.ATTR_GEN_AI_PROVIDER_NAME]: 'anthropic',
        [semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS]: 512,
        [semconv.ATTR_GEN_AI_RESPONSE_MODEL]: 'claude-haiku-4-5',
        [semconv.ATTR_GEN_AI_CONVERSATION_ID]: 'chat-42',
        [ATTR_SERVER_ADDRESS]: '127.0.0.1',
        [ATTR_SERVER_PORT]: Number(new URL(emulator.url).port),
      })
      expect(String(chat.attributes[semconv.ATTR_GEN_AI_RESPONSE_ID])).toMatch(/^msg_/)
    }
    expect(chats[0]?.attributes[semconv.ATTR_GEN_AI_RESPONSE_ID]).not.toBe(
      chats[1]?.attributes[semconv.ATTR_GEN_AI_RESPONSE_ID],
    )
    expect(tool?.attributes).toMatchObject({
      [semconv.ATTR_GEN_AI_TOOL_NAME]: 'echo',
      [semconv.ATTR_GEN_AI_TOOL_DESCRIPTION]: 'Say the text back',
    })
  })
})
