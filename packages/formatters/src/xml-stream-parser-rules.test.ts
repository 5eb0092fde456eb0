import type { ToolCallBlock } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chunksOf } from '../../../test-utils/chunks.js'
import { escapeBlockText } from './block-text.js'
import { parseAll } from './test-support.js'
import type { StreamEvent } from './types.js'
import { unescapeXml } from './xml-escape.js'
import { XmlStreamParser } from './xml-stream-parser.js'
import { parseXmlToolCalls } from './xml-tools.js'

const NS = ['ant', 'ml'].join('')

function run(text: string | string[]): StreamEvent[] {
  return parseAll(new XmlStreamParser(), typeof text === 'string' ? [text] : text)
}

function callsOf(events: readonly StreamEvent[]): ToolCallBlock[] {
  return events.flatMap((e) => (e.type === 'tool-call-end' && !e.incomplete ? [e.call] : []))
}

function textOf(events: readonly StreamEvent[]): string {
  return events.map((e) => (e.type === 'text-delta' ? e.text : '')).join('')
}

/** Everything the events carry, in order: text, thinking, each call's and result's raw. */
function said(events: readonly StreamEvent[]): string {
  return events
    .map((e) => {
      if (e.type === 'text-delta' || e.type === 'thinking-delta') return e.text
      if (e.type === 'tool-call-end') return e.call.raw ?? ''
      if (e.type === 'tool-result') return e.raw
      return ''
    })
    .join('')
}

/** Drop what is layout, not content: whitespace and the block tags themselves. */
function content(text: string): string {
  return text
    .replace(
      new RegExp(`</?(?:${NS}:)?(?:thinking|function_calls|function_results)[ \\t\\r\\n]*>`, 'g'),
      '',
    )
    .replace(/\s+/g, '')
}

describe('XmlStreamParser: calls that used to vanish', () => {
  test('a self-closing <invoke name="…"/> is a call with empty input, streaming and whole', () => {
    const text = `Listing.\n<function_calls>\n<invoke name="list_files"/>\n<${NS}:invoke name="b"/></function_calls>`
    const events = run(text)
    expect(callsOf(events).map((c) => [c.id, c.name, c.input, c.raw])).toEqual([
      ['toolu_xml_1', 'list_files', {}, '<invoke name="list_files"/>'],
      ['toolu_xml_2', 'b', {}, `<${NS}:invoke name="b"/>`],
    ])
    expect(run([...text])).toEqual(events)
    expect(parseXmlToolCalls(text).map((c) => c.name)).toEqual(['list_files', 'b'])
  })

  test('a self-closing parameter is an empty value', () => {
    const [call] = parseXmlToolCalls(
      '<function_calls><invoke name="t"><parameter name="a"/><parameter name="b">x</parameter></invoke></function_calls>',
    )
    expect(call?.input).toEqual({ a: '', b: 'x' })
  })

  test('an unquoted <invoke name=read_file> comes back as text, not nothing', () => {
    const text =
      'Reading.<function_calls>\n<invoke name=read_file>\n<parameter name="path">a.ts</parameter>\n</invoke>\n</function_calls>'
    const events = run(text)
    expect(callsOf(events)).toEqual([])
    expect(textOf(events)).toBe(text)
  })

  test('a <function_calls> with no call in it is what the model said', () => {
    expect(run('Let me try.<function_calls>\nActually, never mind: 42.')).toEqual([
      { type: 'text-delta', text: 'Let me try.<function_calls>\nActually, never mind: 42.' },
    ])
    expect(run('a<function_calls>\n</function_calls>b')).toEqual([
      { type: 'text-delta', text: 'a<function_calls>\n</function_calls>b' },
    ])
    // prose between calls is text; the calls around it still count
    const events = run(
      '<function_calls><invoke name="a"></invoke>\nOops, one more:\n<invoke name="b"></invoke>\n</function_calls>',
    )
    expect(events.map((e) => e.type)).toEqual([
      'tool-call-start',
      'tool-call-end',
      'text-delta',
      'tool-call-start',
      'tool-call-end',
    ])
    expect(textOf(events)).toBe('\nOops, one more:\n')
  })

  test('property: nothing the model says disappears, whatever the chunking', () => {
    const piece = fc.constantFrom(
      '<thinking>',
      '</thinking>',
      '<function_calls>',
      '</function_calls>',
      '<function_results>',
      '</function_results>',
      '<invoke name="t">',
      '<invoke name=t>',
      '<invoke name="u"/>',
      '</invoke>',
      '<parameter name="p">',
      '<parameter name="q"/>',
      '</parameter>',
      '<result tool_call_id="c1">',
      '</result>',
      '<error tool_call_id="c2">',
      '</error>',
      `<${NS}:invoke name="v">`,
      `</${NS}:invoke>`,
      '<',
      'a < b',
      ' ',
      '\n',
      'word',
      '42.',
    )
    const doc = fc
      .array(
        fc.oneof(
          piece,
          fc.string({ maxLength: 5 }).map((s) => s.replaceAll('&', '+')),
        ),
        {
          maxLength: 30,
        },
      )
      .map((a) => a.join(''))
    fc.assert(
      fc.property(doc, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const events = run(chunksOf(text, cuts))
        expect(content(said(events))).toBe(content(text))
      }),
      { numRuns: 600 },
    )
  })
})

describe('XmlStreamParser: parameter values containing </parameter>', () => {
  test('a value runs to the last </parameter> before the next parameter or </invoke>', () => {
    const [call] = parseXmlToolCalls(
      '<function_calls><invoke name="w"><parameter name="code">a</parameter>b</parameter>\n<parameter name="n">1</parameter></invoke></function_calls>',
    )
    expect(call?.input).toEqual({ code: 'a</parameter>b', n: '1' })
    const [last] = parseXmlToolCalls(
      '<function_calls><invoke name="w"><parameter name="x">1</parameter>2</parameter>3</parameter>\n</invoke>',
    )
    expect(last?.input).toEqual({ x: '1</parameter>2</parameter>3' })
  })

  test('the value is settled (and its event emitted) only when the next tag decides it', () => {
    const p = new XmlStreamParser()
    p.processChunk('<function_calls><invoke name="w"><parameter name="c">a</parameter>')
    expect(p.processChunk('b</parameter>')).toEqual([])
    expect(p.processChunk('\n</invoke>')).toEqual([
      { type: 'tool-call-parameter', id: 'toolu_xml_1', name: 'c', value: 'a</parameter>b' },
      expect.objectContaining({ type: 'tool-call-end' }),
    ])
  })

  test('a stream cut after a closing tag keeps the value up to it in the incomplete call', () => {
    const events = run('<function_calls><invoke name="w"><parameter name="c">a</parameter>b')
    const end = events.find((e) => e.type === 'tool-call-end')
    expect(end).toMatchObject({ incomplete: true, call: { input: { c: 'a' } } })
    expect(end?.type === 'tool-call-end' && end.call.raw).toBe(
      '<invoke name="w"><parameter name="c">a</parameter>b',
    )
  })

  test('property: any value without `<parameter name=` or `</invoke>` comes back whole', () => {
    const part = fc.constantFrom('</parameter>', `</${NS}:parameter>`, '<', '>', 'x', '\n', ' ')
    const value = fc
      .array(fc.oneof(part, fc.string({ maxLength: 4 })), { maxLength: 12 })
      .map((a) => a.join(''))
      .filter((v) => !/<(?:[a-z]+:)?parameter[\s>/]|<\/(?:[a-z]+:)?invoke/.test(v))
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat()),
        (values, cuts) => {
          const params = values.map((v, i) => `<parameter name="p${i}">${v}</parameter>`).join('\n')
          const text = `<function_calls>\n<invoke name="t">\n${params}\n</invoke>\n</function_calls>`
          const calls = callsOf(run(chunksOf(text, cuts)))
          const expected = Object.fromEntries(values.map((v, i) => [`p${i}`, unescapeXml(v)]))
          expect(calls.map((c) => c.input)).toEqual([expected])
          expect(calls[0]?.raw).toBe(`<invoke name="t">\n${params}\n</invoke>`)
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe('XmlStreamParser: <function_results>', () => {
  test('results become tool-result events; tags inside them mean nothing', () => {
    const text =
      '<function_results>\n<result tool_call_id="c1">\nok &lt;3\n</result>\n<error tool_call_id="c2">\nboom <function_calls><invoke name="x"></invoke>\n</error>\n</function_results>after'
    const events = run(text)
    expect(events).toEqual([
      {
        type: 'tool-result',
        result: {
          type: 'tool_result',
          toolCallId: 'c1',
          content: [{ type: 'text', text: 'ok <3' }],
          isError: false,
        },
        raw: '<result tool_call_id="c1">\nok &lt;3\n</result>',
      },
      {
        type: 'tool-result',
        result: {
          type: 'tool_result',
          toolCallId: 'c2',
          content: [{ type: 'text', text: 'boom <function_calls><invoke name="x"></invoke>' }],
          isError: true,
        },
        raw: '<error tool_call_id="c2">\nboom <function_calls><invoke name="x"></invoke>\n</error>',
      },
      { type: 'text-delta', text: 'after' },
    ])
    expect(run([...text])).toEqual(events)
  })

  test('a result cut off by the end of the stream is released as text', () => {
    expect(run('<function_results><result tool_call_id="c">\npart')).toEqual([
      { type: 'text-delta', text: '<result tool_call_id="c">\npart' },
    ])
  })
})

describe('XmlStreamParser: getBlockIndex', () => {
  test('counts text, thinking, call and result blocks', () => {
    const p = new XmlStreamParser()
    const seen: Array<[string, number]> = []
    for (const chunk of [
      'Hi ',
      '<thinking>hm',
      '</thinking>',
      'ok\n<function_calls>\n',
      '<invoke name="a">',
      '</invoke>\n',
      '</function_calls>\n<function_results><result tool_call_id="t">\nr\n</result>',
      '</function_results>end',
    ]) {
      p.processChunk(chunk)
      seen.push([p.getCurrentBlockType(), p.getBlockIndex()])
    }
    expect(seen).toEqual([
      ['text', 0],
      ['thinking', 1],
      ['text', 2],
      ['text', 2],
      ['tool-call', 3],
      ['text', 4],
      // '\n' after </function_calls> is text block 4, the result block 5
      ['text', 6],
      ['text', 6],
    ])
    p.reset()
    expect(p.getBlockIndex()).toBe(0)
  })

  test('property: after any prefix, the index does not depend on how it was chunked', () => {
    const piece = fc.constantFrom(
      '<thinking>',
      '</thinking>',
      '<function_calls>',
      '</function_calls>',
      '<invoke name="t">',
      '<invoke name="u"/>',
      '</invoke>',
      '<parameter name="p">',
      '</parameter>',
      '<function_results>',
      '<result tool_call_id="r">',
      '</result>',
      '</function_results>',
      '<',
      'x',
      ' ',
      '\n',
    )
    fc.assert(
      fc.property(
        fc
          .array(fc.oneof(piece, fc.string({ maxLength: 4 })), { maxLength: 25 })
          .map((a) => a.join('')),
        fc.array(fc.nat(), { maxLength: 10 }),
        (text, cuts) => {
          const chunked = new XmlStreamParser()
          let done = ''
          for (const chunk of chunksOf(text, cuts)) {
            chunked.processChunk(chunk)
            done += chunk
            const whole = new XmlStreamParser()
            whole.processChunk(done)
            expect(chunked.getBlockIndex()).toBe(whole.getBlockIndex())
            expect(chunked.getCurrentBlockType()).toBe(whole.getCurrentBlockType())
          }
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe('thinking text', () => {
  test('a thinking block quoting its own closing tag survives render and parse', () => {
    const thinking = 'a </thinking> b &lt; c & d'
    const written = `<thinking>${escapeBlockText(thinking, ['</thinking'])}</thinking>`
    expect(written).toBe('<thinking>a &lt;/thinking> b &amp;lt; c & d</thinking>')
    const events = run([...written])
    expect(events).toEqual([
      { type: 'thinking-start' },
      { type: 'thinking-delta', text: thinking },
      { type: 'thinking-end' },
    ])
  })

  test('property: unescapeXml(escapeBlockText(t)) === t', () => {
    const part = fc.constantFrom(
      '&',
      '&lt;',
      '&amp;',
      '&#60;',
      '&#x3C;',
      '</thinking',
      '</think',
      ';',
      '<',
      'lt;',
      '#',
    )
    fc.assert(
      fc.property(
        fc.array(fc.oneof(part, fc.string({ maxLength: 3 })), { maxLength: 15 }),
        (parts) => {
          const t = parts.join('')
          const escaped = escapeBlockText(t, ['</thinking', '</think'])
          expect(unescapeXml(escaped)).toBe(t)
          expect(escaped.includes('</thinking') || escaped.includes('</think')).toBe(false)
        },
      ),
      { numRuns: 500 },
    )
  })
})
