import { getModelInfo, type Message, type ToolDefinition, textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { PrefillUnsupportedError, TooManyParticipantsError } from './errors.js'
import { NativeFormatter } from './native-formatter.js'
import { PassThroughStreamParser } from './passthrough-parser.js'

const tool: ToolDefinition = {
  name: 'ls',
  description: 'List files',
  inputSchema: { type: 'object', properties: { dir: { type: 'string' } } },
}

const history: Message[] = [
  textMessage('user', 'List the files'),
  textMessage('user', 'in src please', { cacheBreakpoint: true }),
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'use ls', signature: 'sig' },
      { type: 'text', text: 'Listing.' },
      { type: 'tool_call', id: 'toolu_1', name: 'ls', input: { dir: 'src' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolCallId: 'toolu_1',
        content: [{ type: 'text', text: 'a.ts' }],
        isError: true,
      },
    ],
  },
]

describe('NativeFormatter', () => {
  test("adds no stop sequences of its own but passes the caller's through, de-duplicated", () => {
    const f = new NativeFormatter()
    expect(f.buildMessages(history).stopSequences).toEqual([])
    expect(
      f.buildMessages(history, { stopSequences: ['END', '', 'END', '\n\nUser:'] }).stopSequences,
    ).toEqual(['END', '\n\nUser:'])
  })

  test('renders user/assistant messages, native tools, no stop sequences (exact)', () => {
    const req = new NativeFormatter().buildMessages(history, { system: 'Sys', tools: [tool] })
    expect(req).toEqual({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'List the files' },
            { type: 'text', text: '\n\nin src please', cache_control: { type: 'ephemeral' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'use ls', signature: 'sig' },
            { type: 'text', text: 'Listing.' },
            { type: 'tool_use', id: 'toolu_1', name: 'ls', input: { dir: 'src' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [{ type: 'text', text: 'a.ts' }],
              is_error: true,
            },
          ],
        },
      ],
      system: [{ type: 'text', text: 'Sys' }],
      stopSequences: [],
      cacheMarkersApplied: 1,
      warnings: [],
      nativeTools: [{ name: 'ls', description: 'List files', input_schema: tool.inputSchema }],
    })
  })

  test('simple mode rejects a third party; multiuser prefixes names', () => {
    const msgs = [
      textMessage('user', 'hi', { participant: 'Alice' }),
      textMessage('user', 'yo', { participant: 'Bob' }),
    ]
    expect(() => new NativeFormatter().buildMessages(msgs)).toThrow(TooManyParticipantsError)
    const req = new NativeFormatter({ participantMode: 'multiuser' }).buildMessages(msgs)
    expect(req.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Alice: hi' },
          { type: 'text', text: '\n\nBob: yo' },
        ],
      },
    ])
  })

  test('a cache breakpoint on a message ending in thinking goes on the last other block', () => {
    const msgs: Message[] = [
      textMessage('user', 'q'),
      {
        role: 'assistant',
        cacheBreakpoint: true,
        content: [
          { type: 'text', text: 'a' },
          { type: 'thinking', thinking: 't', signature: 's' },
        ],
      },
      textMessage('user', 'next'),
    ]
    const req = new NativeFormatter().buildMessages(msgs)
    expect(req.messages[1]?.content).toEqual([
      { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
      { type: 'thinking', thinking: 't', signature: 's' },
    ])
    const onlyThinking = new NativeFormatter().buildMessages([
      textMessage('user', 'q'),
      { role: 'assistant', cacheBreakpoint: true, content: [{ type: 'thinking', thinking: 't' }] },
      textMessage('user', 'next'),
    ])
    expect(onlyThinking.cacheMarkersApplied).toBe(0)
  })

  test('prefill continues the final assistant message after a blank line, without trailing whitespace', () => {
    const f = new NativeFormatter()
    const a = f.buildMessages([textMessage('user', 'q')], { prefill: 'Answer: \n' })
    expect(a.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Answer:' }],
    })
    expect(a.assistantPrefill).toBe('Answer:')
    const b = f.buildMessages([textMessage('user', 'q'), textMessage('assistant', 'One ')], {
      prefill: 'two',
    })
    expect(b.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'One\n\ntwo' }],
    })
    const own = f.buildMessages([textMessage('user', 'q'), textMessage('assistant', 'One ')], {
      prefill: ' two',
    })
    expect(own.assistantPrefill).toBe('One two')
  })

  test('contextPrefix, hasCacheMarker, cacheTtl and promptCaching', () => {
    const f = new NativeFormatter()
    const req = f.buildMessages(
      [textMessage('user', 'Hi'), textMessage('assistant', 'Yo'), textMessage('user', 'Bye')],
      {
        contextPrefix: 'Shared notes.',
        cacheContextPrefix: true,
        hasCacheMarker: (_m, i) => i === 1,
        cacheTtl: '1h',
      },
    )
    const mark = { type: 'ephemeral', ttl: '1h' }
    expect(req.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Shared notes.', cache_control: mark },
          { type: 'text', text: '\n\nHi' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Yo', cache_control: mark }] },
      { role: 'user', content: [{ type: 'text', text: 'Bye' }] },
    ])
    expect(req.cacheMarkersApplied).toBe(2)
    const seeded = f.buildMessages([textMessage('user', 'Now')], {
      contextPrefix: [textMessage('user', 'Then'), textMessage('assistant', 'Ok')],
    })
    expect(seeded.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    const off = f.buildMessages([textMessage('user', 'Hi', { cacheBreakpoint: true })], {
      promptCaching: false,
      system: [{ id: 's', text: 'S', priority: 1, cache: 'stable' }],
    })
    expect(off.cacheMarkersApplied).toBe(0)
    expect(JSON.stringify(off)).not.toContain('cache_control')
  })

  test('output is passed through as text; tool calls are never parsed from text', () => {
    const f = new NativeFormatter()
    const parser = f.createStreamParser()
    expect(parser).toBeInstanceOf(PassThroughStreamParser)
    expect(parser.processChunk('<function_calls><invoke name="x">')).toEqual([
      { type: 'text-delta', text: '<function_calls><invoke name="x">' },
    ])
    expect(parser.processChunk('')).toEqual([])
    expect(parser.flush()).toEqual([])
    expect(f.parseToolCalls()).toEqual([])
    expect(f.hasToolUse()).toBe(false)
    expect(f.formatToolDefinitions()).toBeUndefined()
  })
})

describe('NativeFormatter, whitespace', () => {
  test('whitespace-only text joins the text before it, or is dropped (never its own block)', () => {
    const req = new NativeFormatter().buildMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: ' ' },
          { type: 'text', text: 'a' },
          { type: 'text', text: ' \n' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: '  ' }], cacheBreakpoint: true },
    ])
    expect(req.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a \n' },
          { type: 'text', text: 'b', cache_control: { type: 'ephemeral' } },
        ],
      },
    ])
    expect(req.cacheMarkersApplied).toBe(1)
  })
})

describe('NativeFormatter, models that cannot take a prefill', () => {
  test('a prefill for such a model is refused up front; without one the request is built', () => {
    const f = new NativeFormatter()
    const q = [textMessage('user', 'q')]
    for (const id of ['claude-fable-5-1', 'claude-sonnet-4-6']) {
      const model = getModelInfo(id)
      expect(() => f.buildMessages(q, { model, prefill: 'Answer:' }), id).toThrow(
        PrefillUnsupportedError,
      )
      expect(f.buildMessages(q, { model }).messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
      ])
    }
    const haiku = getModelInfo('claude-haiku-4-5')
    expect(f.buildMessages(q, { model: haiku, prefill: 'Answer:' }).assistantPrefill).toBe(
      'Answer:',
    )
  })
})
