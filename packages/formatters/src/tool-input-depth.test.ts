import {
  ContextkitError,
  MAX_JSON_DEPTH,
  type Message,
  type ToolCallBlock,
  type ToolDefinition,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { ChatMLFormatter, renderQwenToolCall } from './chatml-formatter.js'
import { CompletionsFormatter } from './completions-formatter.js'
import { NativeFormatter } from './native-formatter.js'
import type { Formatter } from './types.js'
import { escapeXml } from './xml-escape.js'
import { renderXmlToolCalls } from './xml-tools.js'

/** One level of nesting: an object `{ key: inner }` or an array `[inner]`. */
type Wrap = { key: string } | 'array'

/** A tool call input `{ a: v }`, `v` wrapped `wraps` deep around `leaf`: depth `wraps.length + 1`. */
interface DeepInput {
  input: Record<string, unknown>
  /** The JSON of `v`, written without recursion (any depth). */
  json: string
  /** Whether `v` is an array (its parameter's JSON Schema type). */
  array: boolean
}

function deepInput(wraps: readonly Wrap[], leaf: string | number | boolean | null): DeepInput {
  let value: unknown = leaf
  let open = ''
  let close = ''
  for (let i = wraps.length - 1; i >= 0; i--) {
    const w = wraps[i]!
    value = w === 'array' ? [value] : { [w.key]: value }
    // built from the inside out: this level's brackets go around what is there
    open = `${w === 'array' ? '[' : `{${JSON.stringify(w.key)}:`}${open}`
    close += w === 'array' ? ']' : '}'
  }
  return {
    input: { a: value },
    json: open + JSON.stringify(leaf) + close,
    array: wraps[0] === 'array',
  }
}

/** `n` levels, objects and arrays alternating. */
function levels(n: number): Wrap[] {
  return Array.from({ length: n }, (_, i): Wrap => (i % 2 === 0 ? { key: 'k' } : 'array'))
}

function toolFor(d: DeepInput): ToolDefinition {
  return {
    name: 'f',
    description: 'takes one nested value',
    inputSchema: {
      type: 'object',
      properties: { a: { type: d.array ? 'array' : 'object' } },
    },
  }
}

/** What each model family writes for a call `f(input)`. */
const qwenReply = (d: DeepInput) =>
  `<tool_call>\n{"name": "f", "arguments": {"a": ${d.json.replaceAll('<', '\\u003c')}}}\n</tool_call>`
const xmlReply = (ns: string) => (d: DeepInput) =>
  `<${ns}function_calls>\n<${ns}invoke name="f">\n<${ns}parameter name="a">${escapeXml(d.json)}</${ns}parameter>\n</${ns}invoke>\n</${ns}function_calls>`
const llamaReply = (d: DeepInput) => `{"name": "f", "parameters": {"a": ${d.json}}}`
const mistralReply = (d: DeepInput) =>
  `[TOOL_CALLS] [{"name": "f", "arguments": {"a": ${d.json}}, "id": "abc123XYZ"}]`

interface Format {
  name: string
  formatter: Formatter
  /** The model's text for the call; none where calls arrive structured (the native API). */
  reply?: (d: DeepInput) => string
  /** What the parser makes of a too-deep call. */
  tooDeep?: 'text' | 'string parameter'
}

type ParsingFormat = Required<Format>

const formats: Format[] = [
  {
    name: 'Anthropic XML',
    formatter: new AnthropicXmlFormatter(),
    reply: xmlReply('antml:'),
    tooDeep: 'string parameter',
  },
  { name: 'native (API tool_use)', formatter: new NativeFormatter() },
  { name: 'completions', formatter: new CompletionsFormatter() },
  { name: 'ChatML json', formatter: new ChatMLFormatter(), reply: qwenReply, tooDeep: 'text' },
  {
    name: 'ChatML xml',
    formatter: new ChatMLFormatter({ toolFormat: 'xml' }),
    reply: xmlReply(''),
    tooDeep: 'string parameter',
  },
  {
    name: 'ChatML native (Qwen 2.5)',
    formatter: new ChatMLFormatter({ toolFormat: 'native' }),
    reply: qwenReply,
    tooDeep: 'text',
  },
  {
    name: 'Llama 3.1 native',
    formatter: new ChatMLFormatter({ preset: 'llama3', toolFormat: 'native' }),
    reply: llamaReply,
    tooDeep: 'text',
  },
  {
    name: 'Mistral native',
    formatter: new ChatMLFormatter({ preset: 'mistral', toolFormat: 'native' }),
    reply: mistralReply,
    tooDeep: 'text',
  },
]

function conversationWith(call: ToolCallBlock): Message[] {
  return [
    { role: 'user', content: [{ type: 'text', text: 'go' }] },
    { role: 'assistant', content: [call] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolCallId: call.id,
          content: [{ type: 'text', text: 'ok' }],
          isError: false,
        },
      ],
    },
  ]
}

function callOf(input: Record<string, unknown>): ToolCallBlock {
  return { type: 'tool_call', id: 'abc123XYZ', name: 'f', input }
}

/** The typed refusal every builder gives a too-deep input (never a `RangeError`). */
function refusal(build: () => unknown): string | undefined {
  try {
    build()
    return undefined
  } catch (error) {
    if (!ContextkitError.isInstance(error)) throw error
    return error.code
  }
}

/**
 * Parse the model's text for `d` and build the parsed call back. Returns what the parser made of
 * it: `'text'` (no call), `'call'` (the call, input as written) or `'string parameter'` (the
 * call, its value kept as the text written: the XML formats' way). Every call read is built again.
 */
function roundTrip(f: ParsingFormat, d: DeepInput): 'text' | 'call' | 'string parameter' {
  const calls = f.formatter.parseToolCalls(f.reply(d), { tools: [toolFor(d)] })
  if (calls.length === 0) return 'text'
  expect(calls).toHaveLength(1)
  const call = calls[0]!
  f.formatter.buildMessages(conversationWith(call), { tools: [toolFor(d)] })
  if (call.input.a === d.json) return 'string parameter'
  expect(call.input).toEqual(d.input)
  return 'call'
}

const parsing = formats.filter((f): f is ParsingFormat => f.reply !== undefined)

describe('one depth limit for parsing and building, in every format', () => {
  describe.each(parsing)('$name', (f) => {
    test('a call as deep as MAX_JSON_DEPTH is read and sent back; one level more is not a deep call', () => {
      expect(roundTrip(f, deepInput(levels(MAX_JSON_DEPTH - 1), 1))).toBe('call')
      expect(roundTrip(f, deepInput(levels(MAX_JSON_DEPTH), 1))).toBe(f.tooDeep)
    })

    test('a 10,000-deep call the model wrote is never read as a call the builder refuses', () => {
      expect(roundTrip(f, deepInput(levels(10_000), 'x'))).toBe(f.tooDeep)
    })
  })

  test.each(formats)('$name: buildMessages refuses an input deeper than the limit, typed', (f) => {
    const build = (n: number) => () =>
      f.formatter.buildMessages(conversationWith(callOf(deepInput(levels(n), 1).input)))
    expect(refusal(build(MAX_JSON_DEPTH - 1))).toBeUndefined()
    expect(refusal(build(MAX_JSON_DEPTH))).toBe('validation_error')
    expect(refusal(build(10_000))).toBe('validation_error')
    expect(refusal(build(100_000))).toBe('validation_error')
  })

  test('a too-deep call in contextPrefix and in the public renderers is refused the same way', () => {
    // one level past the limit (a 10,000-deep one is refused as well, by the stack overflow)
    const deep = callOf(deepInput(levels(MAX_JSON_DEPTH), 1).input)
    const prefix = conversationWith(deep)
    const ok = conversationWith(callOf({ a: 1 }))
    expect(refusal(() => new ChatMLFormatter().buildMessages(ok, { contextPrefix: prefix }))).toBe(
      'validation_error',
    )
    expect(refusal(() => renderQwenToolCall(deep))).toBe('validation_error')
    expect(refusal(() => renderXmlToolCalls([deep]))).toBe('validation_error')
  })

  test('property: a parsed call is always sendable; the parser reads exactly what builders take', () => {
    const wrap: fc.Arbitrary<Wrap> = fc.oneof(
      fc.constant<Wrap>('array'),
      fc.constantFrom('k', 'a b', '<&>', '').map((key): Wrap => ({ key })),
    )
    const leaf = fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null))
    // any depth up to a few past the limit, and often right around it
    const depth = fc.oneof(
      fc.integer({ min: 1, max: MAX_JSON_DEPTH + 3 }),
      fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }),
    )
    fc.assert(
      fc.property(
        depth.chain((n) => fc.array(wrap, { minLength: n, maxLength: n })),
        leaf,
        fc.constantFrom(...parsing),
        (wraps, value, f) => {
          const d = deepInput(wraps, value)
          const within = wraps.length + 1 <= MAX_JSON_DEPTH
          expect(roundTrip(f, d)).toBe(within ? 'call' : f.tooDeep)
          const built = refusal(() => f.formatter.buildMessages(conversationWith(callOf(d.input))))
          expect(built).toBe(within ? undefined : 'validation_error')
        },
      ),
      { numRuns: 300 },
    )
  })
})
