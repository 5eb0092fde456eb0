// otelTrace end to end: runAgent → anthropicProvider → the real SDK → testkit, its spans read
// back from the OpenTelemetry SDK's in-memory exporter.
import { memoryTrace, textMessage, ValidationError } from '@contextkit/core'
import { context, type Tracer, trace } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import * as semconv from '@opentelemetry/semantic-conventions/incubating'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { GEN_AI, OPERATION } from './attributes.js'
import { otelTrace } from './otel-trace.js'
import { otelHarness } from './test-otel.js'

const { exporter, tracer } = otelHarness('otel-trace.test')

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up',
  input: z.object({ word: z.string() }),
  execute: async ({ word }) => {
    await sleep(60)
    return `${word}: found`
  },
})
const broken = defineTool({
  name: 'broken',
  description: 'Always fails',
  input: z.object({}),
  execute: () => {
    throw new Error('disk on fire')
  },
})

const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId
const byOp = (spans: ReadableSpan[], op: string) =>
  spans.filter((s) => s.attributes[GEN_AI.operation] === op)
const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6

describe('otelTrace', () => {
  test('one run span, a chat span per step and a tool span per call, parented to the run', async () => {
    const { provider: model } = await emulated([
      {
        text: 'Looking both up.',
        toolUse: [
          { name: 'lookup', input: { word: 'alpha' }, id: 'toolu_a' },
          { name: 'lookup', input: { word: 'beta' }, id: 'toolu_b' },
        ],
        usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 30 },
      },
      {
        text: 'Both found.',
        usage: { input_tokens: 150, output_tokens: 5, cache_creation_input_tokens: 7 },
      },
    ])
    const run = runAgent({
      provider: model,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Look up alpha and beta')],
      tools: [lookup],
      trace: otelTrace(tracer, { providerName: 'anthropic', agentName: 'helper' }),
    })
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    const spans = exporter.getFinishedSpans()
    expect(spans).toHaveLength(5)
    const [root] = byOp(spans, OPERATION.invokeAgent)
    const chats = byOp(spans, OPERATION.chat)
    const tools = byOp(spans, OPERATION.executeTool)
    expect(root?.name).toBe('invoke_agent helper')
    expect(parentOf(root!)).toBeUndefined()
    expect(chats.map((s) => s.name)).toEqual(['chat claude-haiku-4-5', 'chat claude-haiku-4-5'])
    expect(tools.map((s) => s.name)).toEqual(['execute_tool lookup', 'execute_tool lookup'])
    // every span is in the run's trace and a direct child of the run span: parallel tools are
    // siblings, never nested in each other or in a model call
    for (const s of [...chats, ...tools]) {
      expect(s.spanContext().traceId).toBe(root!.spanContext().traceId)
      expect(parentOf(s)).toBe(root!.spanContext().spanId)
    }
    expect(tools.map((s) => s.attributes[GEN_AI.toolCallId]).sort()).toEqual(['toolu_a', 'toolu_b'])
    // the two calls ran at the same time: their spans overlap, and each took its 60 ms
    const [a, b] = tools.map((s) => [ms(s.startTime), ms(s.endTime)] as const)
    expect(Math.max(a![0], b![0])).toBeLessThan(Math.min(a![1], b![1]))
    for (const s of tools) expect(ms(s.endTime) - ms(s.startTime)).toBeGreaterThanOrEqual(50)
    // model calls: request model, finish reasons, usage (input counts the cached tokens too)
    expect(chats[0]!.attributes).toMatchObject({
      [GEN_AI.requestModel]: 'claude-haiku-4-5',
      [GEN_AI.providerName]: 'anthropic',
      [GEN_AI.finishReasons]: ['tool_use'],
      [GEN_AI.inputTokens]: 130,
      [GEN_AI.outputTokens]: 20,
      [GEN_AI.cacheReadTokens]: 30,
      [GEN_AI.cacheCreationTokens]: 0,
      'contextkit.step': 1,
    })
    expect(chats[1]!.attributes).toMatchObject({
      [GEN_AI.finishReasons]: ['end_turn'],
      [GEN_AI.inputTokens]: 157,
      [GEN_AI.cacheCreationTokens]: 7,
      'contextkit.step': 2,
    })
    // the first model call ends before its tools start; the second starts after they end
    expect(ms(chats[0]!.endTime)).toBeLessThanOrEqual(Math.min(a![0], b![0]) + 1)
    expect(ms(chats[1]!.startTime)).toBeGreaterThanOrEqual(Math.max(a![1], b![1]) - 1)
    expect(root!.attributes).toMatchObject({
      [GEN_AI.requestModel]: 'claude-haiku-4-5',
      [GEN_AI.agentName]: 'helper',
      [GEN_AI.inputTokens]: 287,
      [GEN_AI.outputTokens]: 25,
      'contextkit.run.id': result.runId,
      'contextkit.stop_reason': 'end_turn',
      'contextkit.steps': 2,
    })
    // content is off by default
    for (const s of spans) expect(s.attributes[GEN_AI.toolCallArguments]).toBeUndefined()
    expect(spans.every((s) => s.status.code !== 2)).toBe(true)
  })

  test('a failed tool call is an error span and the run goes on', async () => {
    const { provider: model } = await emulated([
      { toolUse: { name: 'broken', input: {}, id: 'toolu_x' } },
      'It failed, sorry.',
    ])
    const run = runAgent({
      provider: model,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Try it')],
      tools: [broken],
      trace: otelTrace(tracer, { recordContent: true }),
    })
    expect((await run.result).stopReason).toBe('end_turn')
    const spans = exporter.getFinishedSpans()
    const [tool] = byOp(spans, OPERATION.executeTool)
    expect(tool?.status.code).toBe(2)
    expect(tool?.attributes[GEN_AI.errorType]).toBe('agent_loop_tool_failed')
    expect(tool?.attributes[GEN_AI.toolCallArguments]).toBe('{}')
    expect(byOp(spans, OPERATION.chat)).toHaveLength(2)
    expect(byOp(spans, OPERATION.invokeAgent)[0]?.status.code).toBe(0)
  })

  test('a model call that fails records the error on its span and on the run span', async () => {
    const { provider: model } = await emulated(
      [{ fault: { kind: 'http', status: 400, message: 'bad request body' } }],
      { provider: { maxRetries: 0 } },
    )
    const run = runAgent({
      provider: model,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Hi')],
      trace: otelTrace(tracer),
    })
    const result = await run.result
    expect(result.stopReason).toBe('error')
    const spans = exporter.getFinishedSpans()
    const [chat] = byOp(spans, OPERATION.chat)
    const [root] = byOp(spans, OPERATION.invokeAgent)
    for (const s of [chat!, root!]) {
      expect(s.status.code).toBe(2)
      expect(s.attributes[GEN_AI.errorType]).toBe(result.error?.code)
      expect(s.events.map((e) => e.name)).toContain('exception')
    }
    expect(root?.attributes['contextkit.stop_reason']).toBe('error')
  })

  test('the run nests under the caller’s active span, and an inner trace gets every record', async () => {
    const { provider: model } = await emulated(['Hello.'])
    const inner = memoryTrace()
    const result = await tracer.startActiveSpan('request', async (outer) => {
      const run = runAgent({
        provider: model,
        model: 'claude-haiku-4-5',
        messages: [textMessage('user', 'Hi')],
        trace: otelTrace(tracer, { trace: inner }),
      })
      await collect(run.events)
      const r = await run.result
      outer.end()
      return { r, outer: outer.spanContext().spanId }
    })
    const [root] = byOp(exporter.getFinishedSpans(), OPERATION.invokeAgent)
    expect(parentOf(root!)).toBe(result.outer)
    expect(inner.events.map((e) => e.stage)).toContain('agent:stop')
  })

  test('an explicit parent context is used, and its other values reach the children', async () => {
    const { provider: model } = await emulated([
      { toolUse: { name: 'lookup', input: { word: 'x' } } },
      'Done.',
    ])
    const outer = tracer.startSpan('outer')
    const key = Symbol('tenant')
    const parent = trace.setSpan(context.active(), outer).setValue(key, 'acme')
    const seen: unknown[] = []
    const spy = new Proxy(tracer, {
      get: (target, prop) =>
        prop === 'startSpan'
          ? (name: string, options: unknown, ctx?: import('@opentelemetry/api').Context) => {
              seen.push(ctx?.getValue(key))
              return target.startSpan(name, options as never, ctx)
            }
          : Reflect.get(target, prop),
    })
    const run = runAgent({
      provider: model,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Hi')],
      tools: [lookup],
      trace: otelTrace(spy, { parent }),
    })
    await run.result
    outer.end()
    const spans = exporter.getFinishedSpans()
    const [root] = byOp(spans, OPERATION.invokeAgent)
    expect(parentOf(root!)).toBe(outer.spanContext().spanId)
    expect(seen).toEqual(['acme', 'acme', 'acme', 'acme'])
  })

  test('the attribute names are the GenAI semantic conventions’ own', () => {
    expect(GEN_AI).toMatchObject({
      operation: semconv.ATTR_GEN_AI_OPERATION_NAME,
      providerName: semconv.ATTR_GEN_AI_PROVIDER_NAME,
      requestModel: semconv.ATTR_GEN_AI_REQUEST_MODEL,
      requestMaxTokens: semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS,
      responseId: semconv.ATTR_GEN_AI_RESPONSE_ID,
      responseModel: semconv.ATTR_GEN_AI_RESPONSE_MODEL,
      conversationId: semconv.ATTR_GEN_AI_CONVERSATION_ID,
      agentName: semconv.ATTR_GEN_AI_AGENT_NAME,
      finishReasons: semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
      inputTokens: semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      outputTokens: semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      cacheReadTokens: semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      cacheCreationTokens: semconv.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
      toolName: semconv.ATTR_GEN_AI_TOOL_NAME,
      toolCallId: semconv.ATTR_GEN_AI_TOOL_CALL_ID,
      toolType: semconv.ATTR_GEN_AI_TOOL_TYPE,
      toolDescription: semconv.ATTR_GEN_AI_TOOL_DESCRIPTION,
      toolCallArguments: semconv.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
      errorType: semconv.ATTR_ERROR_TYPE,
      serverAddress: semconv.ATTR_SERVER_ADDRESS,
      serverPort: semconv.ATTR_SERVER_PORT,
    })
    expect(Object.keys(GEN_AI)).toHaveLength(21)
    expect(OPERATION).toEqual({
      invokeAgent: semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    })
  })

  test('a bad tracer or options object is a ValidationError naming the argument', () => {
    expect(() => otelTrace({} as Tracer)).toThrow(ValidationError)
    expect(() => otelTrace(null as unknown as Tracer)).toThrow(/otelTrace: tracer must be/)
    expect(() => otelTrace(tracer, 5 as never)).toThrow(/otelTrace: options must be/)
  })

  test('records out of order or malformed never throw and leave no span open', () => {
    const t = otelTrace(tracer)
    t.record('agent:reply', { step: 1 })
    t.record('agent:tool', { tool: 5 })
    t.record('agent:run-start', { runId: 'r1', model: 'm' })
    t.record('agent:request', { step: 'x', model: 7 })
    t.record('agent:run-start', { runId: 'r2', model: 'm' })
    t.record('agent:stop', { stopReason: 'end_turn', steps: 0 })
    t.record('agent:stop', {})
    const spans = exporter.getFinishedSpans()
    expect(spans.map((s) => s.attributes['contextkit.run.id']).filter(Boolean)).toEqual([
      'r1',
      'r2',
    ])
    expect(byOp(spans, OPERATION.invokeAgent)[0]?.attributes['contextkit.stop_reason']).toBe(
      'superseded',
    )
    expect(byOp(spans, OPERATION.chat)).toHaveLength(1)
    expect(trace.getActiveSpan()).toBeUndefined()
  })
})
