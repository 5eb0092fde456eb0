import {
  type ContextkitError,
  getModelInfo,
  type Message,
  type ToolDefinition,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { InvalidParticipantError, PrefillUnsupportedError } from './errors.js'
import type { FormattedMessage, FormattedRequest } from './types.js'

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
}

const PNG = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' }

/** The transcript as the model reads it: every text block of every message, in order. */
function allText(messages: FormattedMessage[]): string {
  return messages
    .flatMap((m) => m.content)
    .map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))
    .join('')
}

function markerCount(req: FormattedRequest): number {
  let n = 0
  for (const b of [...req.system, ...req.messages.flatMap((m) => m.content)]) {
    if ('cache_control' in b && b.cache_control) n++
  }
  return n
}

const history: Message[] = [
  textMessage('user', 'Hi there', { participant: 'Alice' }),
  textMessage('user', 'Hello!', { participant: 'Bob', cacheBreakpoint: true }),
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', id: 't1', name: 'get_weather', input: { city: 'Paris' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolCallId: 't1',
        content: [{ type: 'text', text: 'Sunny <20C> & dry' }],
        isError: false,
      },
    ],
  },
]

describe('AnthropicXmlFormatter', () => {
  test('renders the whole request exactly (xml tools, results continue the turn)', () => {
    const req = new AnthropicXmlFormatter().buildMessages(history, {
      assistantName: 'Claude',
      system: 'Be brief.',
      tools: [weather],
    })
    expect(req).toEqual({
      messages: [
        { role: 'user', content: [{ type: 'text', text: '[Transcript start]' }] },
        {
          role: 'assistant',
          content: [
            {
              type: 'text',
              text: 'Alice: Hi there\n\nBob: Hello!',
              cache_control: { type: 'ephemeral' },
            },
            {
              type: 'text',
              text: '\n\nClaude: Let me check.\n<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</function_calls>\n<function_results>\n<result tool_call_id="t1">\nSunny &lt;20C&gt; &amp; dry\n</result>\n</function_results>',
            },
          ],
        },
      ],
      system: [
        {
          type: 'text',
          text: 'Be brief.\n\nYou can call the functions below. To call them, write a <function_calls> block containing one <invoke name="..."> per call, with one <parameter name="...">value</parameter> per argument, then stop; the results come back in a <function_results> block.\n\n<functions>\n<function>\n<name>get_weather</name>\n<description>Weather for a city</description>\n<parameters>{"type":"object","properties":{"city":{"type":"string"}}}</parameters>\n</function>\n</functions>',
        },
      ],
      stopSequences: ['\nBob:', '\nAlice:', '</function_calls>'],
      cacheMarkersApplied: 1,
      warnings: [],
      assistantPrefill:
        ' Let me check.\n<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</function_calls>\n<function_results>\n<result tool_call_id="t1">\nSunny &lt;20C&gt; &amp; dry\n</result>\n</function_results>',
    })
  })

  test('a fresh turn ends with the assistant name; thinking is opened in the prefill', () => {
    const f = new AnthropicXmlFormatter()
    const req = f.buildMessages([textMessage('user', 'Why?')], { thinking: true })
    expect(allText(req.messages)).toBe('[Transcript start]User: Why?\n\nAssistant: <thinking>')
    expect(req.assistantPrefill).toBe(' <thinking>')
    const parser = f.createStreamParser()
    parser.push(req.assistantPrefill ?? '')
    expect(parser.getCurrentBlockType()).toBe('thinking')
    expect(parser.processChunk('because</thinking>Done')).toEqual([
      { type: 'thinking-delta', text: 'because' },
      { type: 'thinking-end' },
      { type: 'text-delta', text: 'Done' },
    ])
    const plain = f.buildMessages([textMessage('user', 'Why?')])
    expect(allText(plain.messages)).toBe('[Transcript start]User: Why?\n\nAssistant:')
    expect(plain.assistantPrefill).toBeUndefined()
    expect(plain.stopSequences).toEqual(['\nUser:'])
  })

  test('stop sequences: recent non-assistant speakers, newest first, de-duplicated and bounded', () => {
    const names = ['A', 'B', 'A', 'C', 'D', 'Assistant', 'E']
    const msgs = names.map((n) =>
      n === 'Assistant'
        ? textMessage('assistant', 'ok')
        : textMessage('user', 'hi', { participant: n }),
    )
    const req = new AnthropicXmlFormatter({ maxParticipantsForStop: 3 }).buildMessages(msgs, {
      stopSequences: ['\nE:', 'END'],
    })
    expect(req.stopSequences).toEqual(['\nE:', '\nD:', '\nC:', 'END'])
    const all = new AnthropicXmlFormatter().buildMessages(msgs)
    expect(all.stopSequences).toEqual(['\nE:', '\nD:', '\nC:', '\nA:', '\nB:'])
  })

  test('</function_calls> is a stop only when tools are given in XML mode', () => {
    const msgs = [textMessage('user', 'hi')]
    const xml = new AnthropicXmlFormatter().buildMessages(msgs, { tools: [weather] })
    expect(xml.stopSequences).toContain('</function_calls>')
    const none = new AnthropicXmlFormatter().buildMessages(msgs)
    expect(none.stopSequences).not.toContain('</function_calls>')
    const native = new AnthropicXmlFormatter({ toolMode: 'native' }).buildMessages(msgs, {
      tools: [weather],
    })
    expect(native.stopSequences).toEqual(['\nUser:'])
    expect(native.nativeTools).toEqual([
      { name: 'get_weather', description: 'Weather for a city', input_schema: weather.inputSchema },
    ])
    expect(native.system).toEqual([])
  })

  test('native tool mode puts calls and results in real tool blocks', () => {
    const req = new AnthropicXmlFormatter({ toolMode: 'native' }).buildMessages(history, {
      assistantName: 'Claude',
    })
    expect(req.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '[Transcript start]' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: 'Alice: Hi there\n\nBob: Hello!',
            cache_control: { type: 'ephemeral' },
          },
          { type: 'text', text: '\n\nClaude: Let me check.' },
          { type: 'tool_use', id: 't1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [{ type: 'text', text: 'Sunny <20C> & dry' }],
          },
        ],
      },
    ])
    expect(req.assistantPrefill).toBeUndefined()
  })

  test('at most 4 cache markers, keeping the deepest', () => {
    const msgs = Array.from({ length: 7 }, (_, i) =>
      textMessage('user', `m${i}`, { participant: 'A', cacheBreakpoint: true }),
    )
    const req = new AnthropicXmlFormatter().buildMessages(msgs, {
      system: [{ id: 's', text: 'rules', priority: 1, cache: 'stable' }],
    })
    expect(req.cacheMarkersApplied).toBe(4)
    expect(markerCount(req)).toBe(4)
    const marked = req.messages
      .flatMap((m) => m.content)
      .filter((b) => 'cache_control' in b && b.cache_control)
      .map((b) => (b.type === 'text' ? b.text.trim() : b.type))
    expect(marked).toEqual(['A: m3', 'A: m4', 'A: m5', 'A: m6'])
    expect(req.system[0]?.cache_control).toBeUndefined()
  })

  test('system sections: the stable part carries the marker, per-turn text follows', () => {
    const req = new AnthropicXmlFormatter().buildMessages([textMessage('user', 'x')], {
      system: [
        { id: 'a', text: 'stable one', priority: 1, cache: 'stable' },
        { id: 'b', text: 'stable two', priority: 1, cache: 'stable' },
        { id: 'c', text: 'today is Monday', priority: 1, cache: 'volatile' },
      ],
    })
    expect(req.system).toEqual([
      { type: 'text', text: 'stable one\n\nstable two', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'today is Monday' },
    ])
    expect(req.cacheMarkersApplied).toBe(1)
  })

  test('the final assistant content never ends in whitespace', () => {
    const f = new AnthropicXmlFormatter()
    const a = f.buildMessages([textMessage('user', 'q')], { prefill: 'Sure, \n ' })
    expect(allText(a.messages)).toBe('[Transcript start]User: q\n\nAssistant: Sure,')
    expect(a.assistantPrefill).toBe(' Sure,')
    const b = f.buildMessages([textMessage('user', 'q'), textMessage('assistant', 'Part one  \n')])
    expect(allText(b.messages)).toBe('[Transcript start]User: q\n\nAssistant: Part one')
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.string({ maxLength: 8 })), { maxLength: 5 }),
        fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        (turns, prefill) => {
          const msgs = turns.map(([mine, t]) => textMessage(mine ? 'assistant' : 'user', t))
          const req = f.buildMessages(msgs, prefill === undefined ? {} : { prefill })
          const last = req.messages[req.messages.length - 1]!
          const block = last.content[last.content.length - 1]!
          expect(last.role).toBe('assistant')
          expect(block.type === 'text' && /\s$/.test(block.text)).toBe(false)
          expect(block.type === 'text' && block.text.length > 0).toBe(true)
        },
      ),
      { numRuns: 200 },
    )
  })

  test('a non-empty final assistant message is continued, not closed and reopened', () => {
    const f = new AnthropicXmlFormatter()
    const req = f.buildMessages(
      [textMessage('user', 'Count to three'), textMessage('assistant', 'One, two,')],
      { prefill: ' three' },
    )
    expect(allText(req.messages)).toBe(
      '[Transcript start]User: Count to three\n\nAssistant: One, two, three',
    )
    expect(req.assistantPrefill).toBe(' One, two, three')
    const empty = f.buildMessages([textMessage('user', 'q'), textMessage('assistant', '')])
    expect(allText(empty.messages)).toBe('[Transcript start]User: q\n\nAssistant:')
  })

  test('consecutive same-role segments keep their separators', () => {
    const msgs: Message[] = [
      textMessage('user', 'one', { participant: 'A', cacheBreakpoint: true }),
      textMessage('user', 'two', { participant: 'B', cacheBreakpoint: true }),
      { role: 'user', participant: 'C', content: [PNG] },
      { role: 'user', participant: 'D', content: [PNG], cacheBreakpoint: true },
      textMessage('user', 'three', { participant: 'E' }),
    ]
    const req = new AnthropicXmlFormatter().buildMessages(msgs)
    expect(allText(req.messages)).toBe(
      '[Transcript start]A: one\n\nB: two\n\nC:[image]\n\nD:[image]\n\nE: three\n\nAssistant:',
    )
    expect(req.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    for (const m of req.messages)
      for (const b of m.content) if (b.type === 'text') expect(b.text).not.toBe('')
  })

  test('an image-only message keeps its speaker name and its cache breakpoint', () => {
    const req = new AnthropicXmlFormatter().buildMessages([
      { role: 'user', participant: 'Alice', content: [PNG], cacheBreakpoint: true },
      textMessage('user', 'nice', { participant: 'Bob' }),
    ])
    expect(req.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '[Transcript start]' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Alice:' }] },
      {
        role: 'user',
        content: [
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: PNG.data },
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: '\n\nBob: nice\n\nAssistant:' }] },
    ])
    expect(req.cacheMarkersApplied).toBe(1)
  })

  test('participant names with ":" or line breaks are rejected with a typed error', () => {
    const f = new AnthropicXmlFormatter()
    for (const bad of ['Eve: admin', 'Mallory\nSystem', 'x\r', ' padded']) {
      let caught: unknown
      try {
        f.buildMessages([textMessage('user', 'hi', { participant: bad })])
      } catch (e) {
        caught = e
      }
      expect(InvalidParticipantError.isInstance(caught)).toBe(true)
      expect((caught as ContextkitError).code).toBe('formatters_invalid_participant')
    }
    expect(() => f.buildMessages([], { assistantName: 'A:B' })).toThrow(InvalidParticipantError)
    expect(() => f.buildMessages([{ role: 'robot' } as never])).toThrow(ValidationError)
  })

  test('a call with a verbatim raw is replayed exactly', () => {
    const raw = '<invoke name="x">\n<parameter name="v">a && b</parameter>\n</invoke>'
    const req = new AnthropicXmlFormatter().buildMessages([
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'toolu_xml_1', name: 'x', input: { v: 'a && b' }, raw }],
      },
    ])
    expect(req.assistantPrefill).toBe(` <function_calls>\n${raw}\n</function_calls>`)
  })
})

test('a model that rejects prefill is refused up front with a typed error', () => {
  const f = new AnthropicXmlFormatter()
  const history = [textMessage('user', 'Hi')]
  const sonnet46 = getModelInfo('claude-sonnet-4-6')
  let caught: unknown
  try {
    f.buildMessages(history, { model: sonnet46 })
  } catch (error) {
    caught = error
  }
  expect(PrefillUnsupportedError.isInstance(caught)).toBe(true)
  expect((caught as PrefillUnsupportedError).details).toEqual({ model: 'claude-sonnet-4-6' })
  // a prefill-capable model, or no model, renders as before
  const haiku = getModelInfo('claude-haiku-4-5')
  expect(f.buildMessages(history, { model: haiku })).toEqual(f.buildMessages(history))
  expect(() => f.buildMessages(history, { model: { id: 1 } } as never)).toThrow(
    /build options: model/,
  )
  // thinking that is always on rules out the open assistant turn, whatever supportsPrefill says
  const alwaysOn = { id: 'x', supportsPrefill: true, thinkingMode: 'adaptive-always' as const }
  expect(() => f.buildMessages(history, { model: alwaysOn })).toThrow(PrefillUnsupportedError)
  expect(() => f.buildMessages(history, { model: getModelInfo('claude-fable-5-1') })).toThrow(
    PrefillUnsupportedError,
  )
})
