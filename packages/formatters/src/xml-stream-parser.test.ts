import type { ToolDefinition } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chunksOf } from '../../../test-utils/chunks.js'
import { MAX_TAG_LENGTH } from './tag-scanner.js'
import { parseAll } from './test-support.js'
import type { StreamEvent } from './types.js'
import { XmlStreamParser } from './xml-stream-parser.js'

function parseChunks(chunks: string[], parser = new XmlStreamParser()): StreamEvent[] {
  return parseAll(parser, chunks)
}

const NS = ['ant', 'ml'].join('')

/** Prefix every tag with the namespace (built at runtime so this file never spells it). */
function withNs(text: string): string {
  return text.replaceAll('</', '\u0000').replaceAll('<', `<${NS}:`).replaceAll('\u0000', `</${NS}:`)
}

function everySplit(text: string): string[] {
  return [...text]
}

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
  },
}

describe('XmlStreamParser', () => {
  test('text, thinking and a tool call become ordered events', () => {
    const text =
      'Hi <thinking>plan</thinking>ok\n<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>\n</invoke>\n</function_calls>\nafter'
    const events = parseChunks([text], new XmlStreamParser({ tools: [weather] }))
    const raw =
      '<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>\n</invoke>'
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hi ' },
      { type: 'thinking-start' },
      { type: 'thinking-delta', text: 'plan' },
      { type: 'thinking-end' },
      { type: 'text-delta', text: 'ok\n' },
      { type: 'tool-call-start', id: 'toolu_xml_1', name: 'get_weather' },
      { type: 'tool-call-parameter', id: 'toolu_xml_1', name: 'city', value: 'Paris' },
      { type: 'tool-call-parameter', id: 'toolu_xml_1', name: 'days', value: 3 },
      {
        type: 'tool-call-end',
        call: {
          type: 'tool_call',
          id: 'toolu_xml_1',
          name: 'get_weather',
          input: { city: 'Paris', days: 3 },
          raw,
        },
      },
      { type: 'text-delta', text: '\nafter' },
    ])
  })

  test('tags split at every possible chunk boundary give the same events', () => {
    const text =
      'a<thinking>t</thinking><function_calls><invoke name=\'x\'><parameter name="p">v</parameter></invoke></function_calls>z'
    expect(parseChunks(everySplit(text))).toEqual(parseChunks([text]))
    expect(parseChunks([text]).map((e) => e.type)).toEqual([
      'text-delta',
      'thinking-start',
      'thinking-delta',
      'thinking-end',
      'tool-call-start',
      'tool-call-parameter',
      'tool-call-end',
      'text-delta',
    ])
  })

  test('exact tag names: set_thinking, thinkingX and a tool called thinking open nothing', () => {
    const text =
      '<set_thinking>a</set_thinking><thinkingX>b<function_calls><invoke name="thinking"><parameter name="thinking">c</parameter></invoke></function_calls>'
    const events = parseChunks([text])
    expect(events.filter((e) => e.type.startsWith('thinking'))).toEqual([])
    expect(events[0]).toEqual({
      type: 'text-delta',
      text: '<set_thinking>a</set_thinking><thinkingX>b',
    })
    const end = events.find((e) => e.type === 'tool-call-end')
    expect(end?.type === 'tool-call-end' && end.call.input).toEqual({ thinking: 'c' })
  })

  test('namespaced tags behave like plain ones, streaming and seeding', () => {
    const plain =
      '<thinking>x</thinking><function_calls><invoke name="a"></invoke></function_calls>'
    const spaced = withNs(plain)
    const strip = (events: StreamEvent[]) =>
      events.map((e) => (e.type === 'tool-call-end' ? { ...e, call: { ...e.call, raw: '' } } : e))
    expect(spaced).not.toBe(plain)
    expect(strip(parseChunks(everySplit(spaced)))).toEqual(strip(parseChunks([plain])))
    const seeded = new XmlStreamParser()
    seeded.push(withNs('Assistant: <thinking>'))
    expect(seeded.getCurrentBlockType()).toBe('thinking')
    expect(seeded.processChunk(withNs('deep</thinking>done'))).toEqual([
      { type: 'thinking-delta', text: 'deep' },
      { type: 'thinking-end' },
      { type: 'text-delta', text: 'done' },
    ])
  })

  test('stray closing tags are text and never unbalance anything', () => {
    const events = parseChunks([
      '</thinking></function_calls></invoke></parameter>hi<thinking>t</thinking>',
    ])
    expect(events).toEqual([
      { type: 'text-delta', text: '</thinking></function_calls></invoke></parameter>hi' },
      { type: 'thinking-start' },
      { type: 'thinking-delta', text: 't' },
      { type: 'thinking-end' },
    ])
  })

  test('text that cannot start a known tag is released at once', () => {
    const p = new XmlStreamParser()
    expect(p.processChunk('if a < b')).toEqual([{ type: 'text-delta', text: 'if a < b' }])
    expect(p.processChunk(' and <thinking about it')).toEqual([
      { type: 'text-delta', text: ' and <thinking about it' },
    ])
    // only the possible tag start is held
    expect(p.processChunk('x <thin')).toEqual([{ type: 'text-delta', text: 'x ' }])
    expect(p.processChunk('k')).toEqual([])
    expect(p.processChunk('s')).toEqual([{ type: 'text-delta', text: '<thinks' }])
    expect(p.processChunk('<')).toEqual([])
    expect(p.flush()).toEqual([{ type: 'text-delta', text: '<' }])
  })

  test('held-back text never exceeds MAX_TAG_LENGTH, whatever the input', () => {
    const p = new XmlStreamParser()
    const text = `<thinking${' '.repeat(3000)}x`
    let released = 0
    let maxHeld = 0
    for (let i = 0; i < text.length; i++) {
      for (const e of p.processChunk(text[i]!))
        if (e.type === 'text-delta') released += e.text.length
      maxHeld = Math.max(maxHeld, i + 1 - released)
    }
    expect(maxHeld).toBeLessThanOrEqual(MAX_TAG_LENGTH)
    expect(released).toBe(text.length)
    expect(p.flush()).toEqual([])
  })

  test('invoke and parameter mean nothing outside function_calls; calls inside thinking are quotes', () => {
    const text =
      '<invoke name="a"><parameter name="b">c</parameter></invoke><thinking>I could write <function_calls><invoke name="a"></invoke></function_calls></thinking>'
    const events = parseChunks([text])
    expect(events.some((e) => e.type.startsWith('tool-call'))).toBe(false)
    expect(events[0]).toEqual({
      type: 'text-delta',
      text: '<invoke name="a"><parameter name="b">c</parameter></invoke>',
    })
    expect(events[2]).toEqual({
      type: 'thinking-delta',
      text: 'I could write <function_calls><invoke name="a"></invoke></function_calls>',
    })
  })

  test('push seeds through the same path without emitting; ids count per parser', () => {
    const p = new XmlStreamParser()
    p.push('<function_calls><invoke name="a"></invoke>')
    expect(p.getCurrentBlockType()).toBe('text')
    const events = p.processChunk('<invoke name="b"></invoke></function_calls>')
    expect(events[0]).toEqual({ type: 'tool-call-start', id: 'toolu_xml_2', name: 'b' })
    expect(p.getAccumulated()).toBe(
      '<function_calls><invoke name="a"></invoke><invoke name="b"></invoke></function_calls>',
    )
    const other = new XmlStreamParser()
    expect(other.processChunk('<function_calls><invoke name="c">')[0]).toEqual({
      type: 'tool-call-start',
      id: 'toolu_xml_1',
      name: 'c',
    })
    p.reset()
    expect(p.getAccumulated()).toBe('')
    expect(p.processChunk('<function_calls><invoke name="d">')[0]).toMatchObject({
      id: 'toolu_xml_1',
    })
  })

  test('a stream cut inside a call ends it as incomplete, keeping the raw text', () => {
    const p = new XmlStreamParser()
    p.processChunk('<function_calls><invoke name="a"><parameter name="x">12')
    expect(p.getCurrentBlockType()).toBe('tool-call')
    expect(p.flush()).toEqual([
      {
        type: 'tool-call-end',
        incomplete: true,
        call: {
          type: 'tool_call',
          id: 'toolu_xml_1',
          name: 'a',
          input: {},
          raw: '<invoke name="a"><parameter name="x">12',
        },
      },
    ])
  })

  test('an unclosed thinking block is closed at flush', () => {
    const p = new XmlStreamParser()
    expect([...p.processChunk('<thinking>abc'), ...p.flush()]).toEqual([
      { type: 'thinking-start' },
      { type: 'thinking-delta', text: 'abc' },
      { type: 'thinking-end' },
    ])
  })

  test('property: any chunking gives the same merged events as one chunk', () => {
    const pieces = fc.constantFrom(
      '<thinking>',
      '</thinking>',
      '<thinking>',
      '<function_calls>',
      '</function_calls>',
      '<invoke name="t">',
      "<invoke name='u'>",
      '</invoke>',
      '<parameter name="p">',
      '</parameter>',
      '<',
      '</',
      '<thin',
      'a < b',
      '&lt;',
      ' ',
      '\n',
      'text',
      '<set_thinking>',
      withNs('<thinking>'),
      withNs('</thinking>'),
      withNs('<function_calls>'),
      withNs('</function_calls>'),
      withNs('<invoke name="v">'),
      withNs('</invoke>'),
      withNs('<parameter name="q">'),
      withNs('</parameter>'),
      '<other:thinking>',
    )
    const doc = fc.oneof(
      fc
        .array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 30 })
        .map((a) => a.join('')),
      fc.string({ maxLength: 60 }),
    )
    fc.assert(
      fc.property(
        doc,
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 12 }),
        (text, cuts) => {
          const chunks = chunksOf(text, cuts)
          expect(parseChunks(chunks)).toEqual(parseChunks([text]))
        },
      ),
      { numRuns: 500 },
    )
  })
})
