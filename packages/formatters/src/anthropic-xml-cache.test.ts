/**
 * The caches and single-pass writers behind `AnthropicXmlFormatter.buildMessages` never change a
 * byte: a render that reuses cached tool definitions equals one of fresh copies, a changed tool
 * is rendered anew, and each fast path equals the plain definition it replaces.
 */
import type { ContentBlock, Message, ToolDefinition } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { stringifyJson } from './lossless-json.js'
import { TranscriptWriter } from './transcript-writer.js'
import type { FormattedMessage } from './types.js'
import { escapeXml, escapeXmlAttribute } from './xml-escape.js'
import { renderParameterValue, renderXmlToolDefinitions } from './xml-tools.js'

/** Text with the characters escaping and trimming care about. */
const text = fc.string({
  unit: fc.constantFrom('a', 'b', ' ', '\n', '\t', '<', '>', '&', '"', ';', '#', 'x', '\u00a0'),
  maxLength: 12,
})
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/)
const value = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
)

const tool: fc.Arbitrary<ToolDefinition> = fc.record({
  name,
  description: text,
  inputSchema: fc.record({
    type: fc.constant('object' as const),
    properties: fc.dictionary(name, fc.record({ type: fc.constantFrom('string', 'integer') }), {
      maxKeys: 3,
    }),
  }),
})

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('thinking' as const), thinking: text }),
  fc.record({
    type: fc.constant('tool_call' as const),
    id: name,
    name,
    input: fc.dictionary(name, value, { maxKeys: 3 }),
  }),
  fc.record({
    type: fc.constant('tool_result' as const),
    toolCallId: name,
    content: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.record({ type: fc.constant('text' as const), text }) },
        fc.record({
          type: fc.constant('image' as const),
          mediaType: fc.constant('image/png' as const),
          data: fc.constant('iVBORw0KGgo='),
        }),
      ),
      { maxLength: 3 },
    ),
    isError: fc.boolean(),
  }),
)

const message: fc.Arbitrary<Message> = fc.record(
  {
    role: fc.constantFrom('user' as const, 'assistant' as const),
    content: fc.array(block, { maxLength: 4 }),
    cacheBreakpoint: fc.boolean(),
    participant: fc.constantFrom('Ann', 'Bob'),
  },
  { requiredKeys: ['role', 'content'] },
)

const formatter = fc.constantFrom(
  new AnthropicXmlFormatter(),
  new AnthropicXmlFormatter({ unsupportedMedia: 'strip' }),
  new AnthropicXmlFormatter({ toolMode: 'native' }),
)

describe('AnthropicXmlFormatter caches', () => {
  test('property: a render with cached tool definitions equals one of fresh copies, also after the tools change', () => {
    fc.assert(
      fc.property(
        formatter,
        fc.array(tool, { maxLength: 4 }),
        fc.array(message, { maxLength: 8 }),
        tool,
        fc.nat(),
        fc.option(text, { nil: undefined }),
        (f, tools, messages, replacement, at, prefill) => {
          const build = (t: ToolDefinition[], m: Message[]) =>
            f.buildMessages(m, { system: 'Be brief.', tools: t, prefill })
          const first = build(tools, messages)
          // the same objects again: served from the caches
          expect(build(tools, messages)).toEqual(first)
          // fresh copies: nothing cached for them
          expect(build(structuredClone(tools), structuredClone(messages))).toEqual(first)
          // the same array, changed in place: one definition replaced, one field of another
          // replaced, one definition added
          if (tools.length > 0) tools[at % tools.length] = replacement
          const other = tools[(at + 1) % Math.max(tools.length, 1)]
          if (other) other.description += ' (changed)'
          tools.push({ ...replacement, name: `${replacement.name}_2` })
          expect(build(tools, messages)).toEqual(
            build(structuredClone(tools), structuredClone(messages)),
          )
        },
      ),
      { numRuns: 150 },
    )
  })

  test('a changed tool is never served from the cache', () => {
    const f = new AnthropicXmlFormatter()
    const schema = { type: 'object' as const, properties: { path: { type: 'string' } } }
    const tools: ToolDefinition[] = [
      { name: 'read', description: 'Read a file', inputSchema: schema },
    ]
    const system = () => f.formatToolDefinitions(tools)
    expect(system()).toContain('<description>Read a file</description>')
    tools[0]!.description = 'Read one file & say so'
    expect(system()).toContain('<description>Read one file &amp; say so</description>')
    tools[0]!.inputSchema = { ...schema, properties: { file: { type: 'string' } } }
    expect(system()).toContain('"file"')
    expect(system()).not.toContain('"path"')
    tools.push({ name: 'list', description: 'List files', inputSchema: { type: 'object' } })
    expect(system()).toContain('<name>list</name>')
    tools.shift()
    expect(system()).not.toContain('<name>read</name>')
    expect(system()).toBe(f.formatToolDefinitions(structuredClone(tools)))
    expect(renderXmlToolDefinitions([])).toBe('<functions>\n\n</functions>')
  })
})

describe('single-pass writers equal the definitions they replace', () => {
  test('property: escapeXml and escapeXmlAttribute', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string()), (s) => {
        const element = s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
        expect(escapeXml(s)).toBe(element)
        expect(escapeXmlAttribute(s)).toBe(element.replaceAll('"', '&quot;'))
      }),
    )
  })

  test('property: parameter values of every JSON type', () => {
    const big = fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(Number)
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), big, fc.boolean(), fc.jsonValue()), (v) => {
        const expected = typeof v === 'string' ? escapeXml(v) : escapeXml(stringifyJson(v))
        expect(renderParameterValue(v)).toBe(expected)
      }),
    )
    expect(renderParameterValue(-0)).toBe('0')
    expect(renderParameterValue(Number.NaN)).toBe('null')
    expect(renderParameterValue(2 ** 60)).toBe('1152921504606846976')
  })

  test('property: TranscriptWriter.trimEnd equals trimming every trailing text block', () => {
    type Op =
      | { op: 'text'; role: 'user' | 'assistant'; text: string }
      | { op: 'block'; role: 'user' | 'assistant' }
      | { op: 'seal' }
      | { op: 'trim' }
    const op: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          op: fc.constant('text' as const),
          role: fc.constantFrom('user' as const, 'assistant' as const),
          text,
        }),
      },
      fc.record({
        op: fc.constant('block' as const),
        role: fc.constantFrom('user' as const, 'assistant' as const),
      }),
      fc.record({ op: fc.constant('seal' as const) }),
      fc.record({ op: fc.constant('trim' as const) }),
    )
    /** `trimEnd` as written before it kept track of the last text appended. */
    const naive = (messages: FormattedMessage[]): void => {
      const msg = messages[messages.length - 1]
      if (msg?.role !== 'assistant') return
      while (msg.content.length > 0) {
        const b = msg.content[msg.content.length - 1]!
        if (b.type !== 'text') return
        b.text = b.text.trimEnd()
        if (b.text !== '') return
        msg.content.pop()
      }
      if (msg.content.length === 0) messages.pop()
    }
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), (ops) => {
        const w = new TranscriptWriter()
        for (const o of ops) {
          if (o.op === 'text') w.text(o.role, o.text)
          else if (o.op === 'block')
            w.block(o.role, {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: '' },
            })
          else if (o.op === 'seal') w.seal()
          else {
            const expected = structuredClone(w.messages())
            naive(expected)
            w.trimEnd()
            expect(w.messages()).toEqual(expected)
          }
        }
      }),
    )
  })
})
