import { type ToolDefinition, ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { coerceParameter } from './coerce.js'
import { parseJsonLossless, stringifyJson } from './lossless-json.js'
import { escapeXml, unescapeXml } from './xml-escape.js'
import { parseXmlToolCalls, renderInvoke, renderXmlToolCalls } from './xml-tools.js'

const tool: ToolDefinition = {
  name: 't',
  description: '',
  inputSchema: {
    type: 'object',
    properties: {
      s: { type: 'string' },
      n: { type: 'integer' },
      f: { type: 'number' },
      b: { type: 'boolean' },
      o: { type: 'object' },
      a: { type: 'array' },
      maybe: { type: ['integer', 'null'] },
    },
  },
}

function call(params: string, quote = '"'): string {
  return `<function_calls><invoke name=${quote}t${quote}>${params}</invoke></function_calls>`
}

describe('tool-call parsing', () => {
  test('values are XML-unescaped; unknown entities and bare ampersands are kept', () => {
    const [c] = parseXmlToolCalls(
      call('<parameter name="s">a &lt;b&gt; &amp;&amp; &#x41;&#66; &nbsp; & c</parameter>'),
      { tools: [tool] },
    )
    expect(c?.input).toEqual({ s: 'a <b> && AB &nbsp; & c' })
  })

  test('the first closing parameter tag ends a value; escaped ones are content', () => {
    const [c] = parseXmlToolCalls(
      call(
        '<parameter name="s">x &lt;/parameter&gt; y</parameter><parameter name="n">1</parameter>',
      ),
      { tools: [tool] },
    )
    expect(c?.input).toEqual({ s: 'x </parameter> y', n: 1 })
    const rendered = renderXmlToolCalls([
      { type: 'tool_call', id: 'a', name: 't', input: { s: 'end </parameter> here' } },
    ])
    expect(rendered).toBe(
      '<function_calls>\n<invoke name="t">\n<parameter name="s">end &lt;/parameter&gt; here</parameter>\n</invoke>\n</function_calls>',
    )
    expect(parseXmlToolCalls(rendered, { tools: [tool] })[0]?.input).toEqual({
      s: 'end </parameter> here',
    })
  })

  test('single- and double-quoted attributes; document order kept', () => {
    const [c] = parseXmlToolCalls(
      call(
        "<parameter name='b'>true</parameter>\n<parameter name=\"s\">x</parameter><parameter  name = 'n' >5</parameter>",
        "'",
      ),
      { tools: [tool] },
    )
    expect(c?.name).toBe('t')
    expect(Object.entries(c?.input ?? {})).toEqual([
      ['b', true],
      ['s', 'x'],
      ['n', 5],
    ])
  })

  test('values are coerced only by the schema', () => {
    const [c] = parseXmlToolCalls(
      call(
        '<parameter name="s">42</parameter><parameter name="n"> 9007199254740993 </parameter><parameter name="f">2.5e3</parameter><parameter name="o">{"k": [1, 18446744073709551617]}</parameter><parameter name="a">[true]</parameter><parameter name="maybe">null</parameter><parameter name="extra">7</parameter>',
      ),
      { tools: [tool] },
    )
    expect(c?.input).toEqual({
      s: '42',
      n: '9007199254740993',
      f: 2500,
      o: { k: [1, '18446744073709551617'] },
      a: [true],
      maybe: null,
      extra: '7',
    })
    const [untyped] = parseXmlToolCalls(call('<parameter name="n">42</parameter>'))
    expect(untyped?.input).toEqual({ n: '42' })
  })

  test('values that do not fit their type stay strings', () => {
    expect(coerceParameter('abc', { type: 'integer' })).toBe('abc')
    expect(coerceParameter('1.5', { type: 'integer' })).toBe('1.5')
    expect(coerceParameter('yes', { type: 'boolean' })).toBe('yes')
    expect(coerceParameter('[1]', { type: 'object' })).toBe('[1]')
    expect(coerceParameter('{bad', { type: 'object' })).toBe('{bad')
    expect(coerceParameter(' 12 ', { type: 'integer' })).toBe(12)
    expect(coerceParameter(' 12 ', { type: ['string', 'integer'] })).toBe(' 12 ')
    expect(coerceParameter('9007199254740992', { type: 'integer' })).toBe(2 ** 53)
  })

  test('incomplete calls are not returned; whitespace between invokes is ignored', () => {
    const text =
      '<function_calls>\n<invoke name="t"><parameter name="s">a</parameter></invoke>\n<invoke name="t"><parameter name="s">b'
    expect(parseXmlToolCalls(text).map((c) => c.input)).toEqual([{ s: 'a' }])
  })

  test('renderInvoke writes non-strings as JSON', () => {
    expect(renderInvoke({ name: 'q', input: { o: { a: '<x>' }, n: 2 ** 60 + 2 ** 10 } })).toBe(
      '<invoke name="q">\n<parameter name="o">{"a":"&lt;x&gt;"}</parameter>\n<parameter name="n">1152921504606848000</parameter>\n</invoke>',
    )
  })
})

describe('helpers', () => {
  test('escapeXml and unescapeXml are inverse on any text', () => {
    for (const s of ['', 'plain', '<a & b>', '&amp;', '&lt;/parameter>', 'x&#60;']) {
      expect(unescapeXml(escapeXml(s))).toBe(s)
    }
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('&', ';', 'amp', 'lt', '#', 'x3C', '<', '>', 'a', '&#', '#60'), {
          maxLength: 20,
        }),
        (parts) => {
          const text = parts.join('')
          expect(unescapeXml(escapeXml(text))).toBe(text)
        },
      ),
    )
    expect(unescapeXml('&amp;lt; &#x1F600; &#1114112; &#xZZ; &#;')).toBe(
      '&lt; \u{1F600} &#1114112; &#xZZ; &#;',
    )
  })

  test('parseJsonLossless keeps inexact integers as strings, everything else like JSON.parse', () => {
    expect(parseJsonLossless('{"a":"9007199254740993","b":9007199254740993,"c":-1e400}')).toEqual({
      a: '9007199254740993',
      b: '9007199254740993',
      c: Number.NEGATIVE_INFINITY,
    })
    expect(parseJsonLossless('[1, 2.5, "x\\"9999999999999999999"]')).toEqual([
      1,
      2.5,
      'x"9999999999999999999',
    ])
    expect(() => parseJsonLossless('{')).toThrow(ValidationError)
    expect(stringifyJson({ big: 12345678901234567890n, n: 1 })).toBe(
      '{"big":12345678901234567890,"n":1}',
    )
  })
})

describe('data-loss regressions', () => {
  test('a parameter called __proto__ is kept as data, not taken as the prototype', () => {
    const [c] = parseXmlToolCalls(
      call(
        '<parameter name="__proto__">{"polluted": true}</parameter><parameter name="s">x</parameter>',
      ),
      { tools: [tool] },
    )
    expect(Object.keys(c?.input ?? {})).toEqual(['__proto__', 's'])
    expect(Object.getOwnPropertyDescriptor(c?.input, '__proto__')?.value).toBe('{"polluted": true}')
    expect(Object.getPrototypeOf(c?.input)).toBe(Object.prototype)
  })

  test('a number literal beyond the float range stays text instead of Infinity', () => {
    expect(coerceParameter('1e400', { type: 'number' })).toBe('1e400')
    expect(coerceParameter('-1e400', { type: ['number', 'null'] })).toBe('-1e400')
    expect(coerceParameter('1e300', { type: 'number' })).toBe(1e300)
  })

  test('stringifyJson: strings that look like its placeholders survive; no-JSON values are typed errors', () => {
    const value = { a: 2n ** 64n + 1n, b: '\u0000bigint0;', '\u0000bigint1;': 5n }
    expect(parseJsonLossless(stringifyJson(value))).toEqual({
      a: '18446744073709551617',
      b: '\u0000bigint0;',
      '\u0000bigint1;': 5,
    })
    const circular: Record<string, unknown> = {}
    circular.me = circular
    expect(() => stringifyJson(circular)).toThrow(ValidationError)
    expect(() => stringifyJson(() => 1)).toThrow(ValidationError)
  })
})
