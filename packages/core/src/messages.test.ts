import { describe, expect, test } from 'vitest'
import {
  AssistantMessageSchema,
  ContentBlockSchema,
  MessageSchema,
  ToolDefinitionSchema,
} from './message-schemas.js'
import { emptyUsage, textMessage, textOf } from './messages.js'

describe('schemas', () => {
  test('accept every content block kind', () => {
    const blocks = [
      { type: 'text', text: 'hi' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'tool_call', id: 't1', name: 'read', input: { path: 'a' }, raw: '<invoke/>' },
      { type: 'tool_result', toolCallId: 't1', content: [{ type: 'text', text: 'ok' }] },
    ]
    const parsed = blocks.map((b) => ContentBlockSchema.parse(b))
    expect(parsed[4]).toEqual({ ...blocks[4], isError: false })
  })

  test('reject unknown block types, bad media types and empty tool ids', () => {
    expect(ContentBlockSchema.safeParse({ type: 'video', url: 'x' }).success).toBe(false)
    expect(
      ContentBlockSchema.safeParse({ type: 'image', mediaType: 'image/bmp', data: '' }).success,
    ).toBe(false)
    expect(
      ContentBlockSchema.safeParse({ type: 'tool_call', id: '', name: 'x', input: {} }).success,
    ).toBe(false)
  })

  test('messages keep participant and cache breakpoint; roles are user or assistant', () => {
    const m = MessageSchema.parse({
      role: 'user',
      participant: 'Alice',
      cacheBreakpoint: true,
      content: [{ type: 'text', text: 'hello' }],
    })
    expect(m.participant).toBe('Alice')
    expect(m.cacheBreakpoint).toBe(true)
    expect(MessageSchema.safeParse({ role: 'system', content: [] }).success).toBe(false)
  })

  test('assistant messages need a stop reason and usage (cache fields default to 0)', () => {
    const reply = AssistantMessageSchema.parse({
      role: 'assistant',
      content: [],
      stopReason: 'end_turn',
      usage: { input: 10, output: 2 },
    })
    expect(reply.usage).toEqual({ input: 10, output: 2, cacheRead: 0, cacheWrite: 0 })
    expect(
      AssistantMessageSchema.safeParse({ role: 'assistant', content: [], usage: emptyUsage() })
        .success,
    ).toBe(false)
  })

  test('tool definitions need an object input schema and an API-valid name', () => {
    const ok = {
      name: 'read_file',
      description: 'Read a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    }
    expect(ToolDefinitionSchema.parse(ok)).toEqual(ok)
    expect(ToolDefinitionSchema.safeParse({ ...ok, name: 'read file' }).success).toBe(false)
    expect(ToolDefinitionSchema.safeParse({ ...ok, inputSchema: { type: 'string' } }).success).toBe(
      false,
    )
  })
})

test('textMessage and textOf', () => {
  const m = textMessage('assistant', 'abc', { participant: 'Claude' })
  expect(m).toEqual({
    role: 'assistant',
    participant: 'Claude',
    content: [{ type: 'text', text: 'abc' }],
  })
  expect(
    textOf([
      { type: 'text', text: 'a' },
      { type: 'tool_call', id: '1', name: 'x', input: {} },
      { type: 'text', text: 'b' },
    ]),
  ).toBe('ab')
  expect(textOf(m)).toBe('abc')
})
