import Anthropic from '@anthropic-ai/sdk'
import { type AgentRun, defineTool, runAgent } from '@contextkit/agent-loop'
import { anthropicProvider } from '@contextkit/agent-loop/anthropic'
import { textMessage, ValidationError } from '@contextkit/core'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import { afterEach, describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import {
  type ContextkitRunMetadata,
  toUIMessageStream,
  toUIMessageStreamResponse,
  type UIStreamableRun,
} from './ui-message-stream.js'

const open: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close()
})

async function provider(script: Script) {
  const emu = await startAnthropicEmulator({ script })
  open.push(() => emu.close())
  return anthropicProvider({
    client: new Anthropic({ apiKey: 'k', baseURL: emu.url, maxRetries: 0 }),
  })
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Look up an order.',
  input: z.object({ id: z.number() }),
  execute: ({ id }) => `order ${id}: 9.50`,
})
const refund = defineTool({
  name: 'refund',
  description: 'Refund an order.',
  input: z.object({ id: z.number() }),
  approval: 'ask',
  execute: ({ id }) => `refunded ${id}`,
})

type Message = UIMessage<ContextkitRunMetadata>

/** The message `useChat` would show at the end: `ai`'s own reader over the stream. */
async function lastMessage(stream: ReadableStream<UIMessageChunk<ContextkitRunMetadata>>) {
  const errors: unknown[] = []
  let last: Message | undefined
  for await (const m of readUIMessageStream<Message>({ stream, onError: (e) => errors.push(e) }))
    last = m
  return { message: last!, errors }
}

describe("toUIMessageStream: a runAgent run read back by ai's readUIMessageStream (real SDK against testkit)", () => {
  test('AgentRun fits the structural input type', () => {
    expectTypeOf<AgentRun>().toMatchTypeOf<UIStreamableRun>()
  })

  test('text, reasoning, a tool call with input and output, two steps, and the metadata', async () => {
    const run = runAgent({
      provider: await provider([
        {
          thinking: 'Order 1 first.',
          text: 'Looking it up.',
          toolUse: { name: 'lookup', input: { id: 1 } },
        },
        'Order 1 is 9.50.',
      ]),
      model: 'claude-sonnet-4-6',
      thinking: { enabled: true },
      messages: [textMessage('user', 'What is order 1?')],
      tools: [lookup],
    })
    const { message, errors } = await lastMessage(toUIMessageStream(run))
    const result = await run.result
    expect(errors).toEqual([])
    expect(message.id).toBe(run.runId)
    expect(message.parts.map((p) => p.type)).toEqual([
      'step-start',
      'reasoning',
      'text',
      'tool-lookup',
      'step-start',
      'text',
    ])
    const [, reasoning, text, call, , answer] = message.parts
    expect(reasoning).toMatchObject({ text: 'Order 1 first.', state: 'done' })
    expect(text).toMatchObject({ text: 'Looking it up.', state: 'done' })
    expect(call).toMatchObject({
      state: 'output-available',
      input: { id: 1 },
      output: 'order 1: 9.50',
    })
    expect(answer).toMatchObject({ text: 'Order 1 is 9.50.' })
    expect(message.metadata).toMatchObject({
      runId: run.runId,
      stopReason: 'end_turn',
      steps: 2,
      usage: { input: result.usage.input, output: result.usage.output },
    })
  })

  test('a run that pauses for approval ends with the tool-approval-request part', async () => {
    const run = runAgent({
      provider: await provider([
        { text: 'Refunding.', toolUse: { name: 'refund', input: { id: 7 } } },
      ]),
      model: 'claude-sonnet-4-6',
      messages: [textMessage('user', 'Refund order 7.')],
      tools: [refund],
    })
    const { message, errors } = await lastMessage(toUIMessageStream(run))
    expect(errors).toEqual([])
    expect((await run.result).stopReason).toBe('awaiting_approval')
    const call = message.parts.find((p) => p.type === 'tool-refund')
    expect(call).toMatchObject({
      state: 'approval-requested',
      input: { id: 7 },
      approval: { id: (await run.result).pending?.[0]?.toolCallId },
    })
    expect(message.metadata?.stopReason).toBe('awaiting_approval')
  })

  test('an aborted run: the stream ends with abort, what streamed so far kept', async () => {
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const slow = defineTool({
      name: 'slow',
      description: 'Waits.',
      input: z.object({}),
      execute: async (_input, { signal }) => {
        release()
        await new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        )
        return 'never'
      },
    })
    const run = runAgent({
      provider: await provider([
        { text: 'Waiting.', toolUse: { name: 'slow', input: {} } },
        'unreached',
      ]),
      model: 'claude-sonnet-4-6',
      messages: [textMessage('user', 'Wait.')],
      tools: [slow],
    })
    const chunks: string[] = []
    const stream = toUIMessageStream(run).pipeThrough(
      new TransformStream<
        UIMessageChunk<ContextkitRunMetadata>,
        UIMessageChunk<ContextkitRunMetadata>
      >({
        transform(chunk, controller) {
          chunks.push(chunk.type)
          controller.enqueue(chunk)
        },
      }),
    )
    void held.then(() => run.abort())
    const { message } = await lastMessage(stream)
    expect((await run.result).stopReason).toBe('aborted')
    expect(chunks.at(-1)).toBe('abort')
    expect(chunks).not.toContain('finish')
    expect(message.parts.some((p) => p.type === 'text' && p.text === 'Waiting.')).toBe(true)
    expect(message.metadata?.stopReason).toBe('aborted')
  })

  test('toUIMessageStreamResponse: an SSE response with the UI stream headers', async () => {
    const run = runAgent({
      provider: await provider(['Hello.']),
      model: 'claude-sonnet-4-6',
      messages: [textMessage('user', 'Hi')],
    })
    const response = toUIMessageStreamResponse(run)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
    const body = await response.text()
    expect(body).toContain('"type":"text-delta"')
    expect(body).toContain('"delta":"Hello."')
    expect(body.trim().endsWith('data: [DONE]')).toBe(true)
  })

  test('bad input is a ValidationError naming it', () => {
    expect(() => toUIMessageStream(null as never)).toThrow(ValidationError)
    expect(() => toUIMessageStream({ events: [] } as never)).toThrow(/run/)
    const run = { events: (async function* () {})() }
    expect(() => toUIMessageStream(run, { id: 'x' } as never)).toThrow(/options\.id/)
    expect(() => toUIMessageStreamResponse(run, 5 as never)).toThrow(ValidationError)
  })
})
