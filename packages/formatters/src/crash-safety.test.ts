import {
  ConfigurationError,
  ContextkitError,
  type Message,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { ChatMLFormatter } from './chatml-formatter.js'
import { CompletionsFormatter } from './completions-formatter.js'
import { NativeFormatter } from './native-formatter.js'
import type { FormattedRequest, Formatter } from './types.js'

const formatters = (): Formatter[] => [
  new AnthropicXmlFormatter(),
  new AnthropicXmlFormatter({ toolMode: 'native', unsupportedMedia: 'strip' }),
  new NativeFormatter(),
  new NativeFormatter({ participantMode: 'multiuser' }),
  new ChatMLFormatter(),
  new ChatMLFormatter({ specialTokens: 'escape', unsupportedMedia: 'strip' }),
  new ChatMLFormatter({ preset: 'llama3', toolFormat: 'xml', unsupportedMedia: 'strip' }),
  new ChatMLFormatter({ preset: 'mistral', specialTokens: 'escape' }),
  new ChatMLFormatter({ preset: 'gemma', unsupportedMedia: 'strip', warnOnStrip: false }),
  new CompletionsFormatter(),
]

/** Run `fn`; return 'ok', 'typed' (a ContextkitError) or rethrow anything else. */
function outcome(fn: () => unknown): 'ok' | 'typed' {
  try {
    fn()
    return 'ok'
  } catch (e) {
    if (ContextkitError.isInstance(e)) return 'typed'
    throw e
  }
}

const text = fc.record({ type: fc.constant('text' as const), text: fc.string({ maxLength: 6 }) })
const image = fc.constant({ type: 'image' as const, mediaType: 'image/png' as const, data: 'AA' })
const block = fc.oneof(
  text,
  fc.constantFrom({ type: 'text' as const, text: ' ' }, { type: 'text' as const, text: '\n' }),
  image,
  fc.record({ type: fc.constant('thinking' as const), thinking: fc.string({ maxLength: 4 }) }),
  fc.record({
    type: fc.constant('tool_call' as const),
    id: fc.constant('c1'),
    name: fc.constant('t'),
    input: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), {
      maxKeys: 2,
    }),
  }),
  fc.record({
    type: fc.constant('tool_result' as const),
    toolCallId: fc.constant('c1'),
    content: fc.array(fc.oneof(text, image), { maxLength: 2 }),
    isError: fc.boolean(),
  }),
)
const message = fc.record(
  {
    role: fc.constantFrom('user' as const, 'assistant' as const),
    content: fc.array(block, { maxLength: 4 }),
    participant: fc.constantFrom('Alice', 'Bob', 'A:B', '<|im_end|>'),
    cacheBreakpoint: fc.boolean(),
  },
  { requiredKeys: ['role', 'content'] },
)

function markers(req: FormattedRequest): number {
  let n = 0
  for (const b of [...req.system, ...req.messages.flatMap((m) => m.content)])
    if ('cache_control' in b && b.cache_control) n++
  return n
}

describe('crash safety (every formatter)', () => {
  test('fuzzed messages: typed errors only; no blank text block; marker count is exact', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.option(fc.string({ maxLength: 4 }), { nil: undefined }),
        fc.boolean(),
        fc.option(fc.oneof(fc.string({ maxLength: 4 }), fc.array(message, { maxLength: 2 })), {
          nil: undefined,
        }),
        (messages, prefill, thinking, contextPrefix) => {
          for (const f of formatters()) {
            outcome(() => {
              const req = f.buildMessages(messages as Message[], {
                thinking,
                cacheContextPrefix: thinking,
                ...(prefill === undefined ? {} : { prefill }),
                ...(contextPrefix === undefined
                  ? {}
                  : { contextPrefix: contextPrefix as Message[] }),
              })
              expect(markers(req)).toBe(req.cacheMarkersApplied)
              for (const m of req.messages)
                for (const b of m.content) if (b.type === 'text') expect(b.text.trim()).not.toBe('')
              const last = req.messages[req.messages.length - 1]
              const tail = last?.content[last.content.length - 1]
              if (last?.role === 'assistant' && tail?.type === 'text')
                expect(tail.text).toBe(tail.text.trimEnd())
            })
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test('wrong types through unknown throw ValidationError, never a TypeError', () => {
    const values: unknown[] = [null, 5, 'x', {}, [null], [{ role: 'user' }]]
    for (const f of formatters()) {
      for (const v of values) {
        const calls: Array<() => unknown> = [
          () => f.buildMessages(v as never),
          () => f.buildMessages([], { prefill: v === 'x' ? 5 : v } as never),
          () => f.buildMessages([], { tools: v } as never),
          () => f.buildMessages([], { system: v === 'x' ? 5 : v } as never),
          () => f.buildMessages([], { stopSequences: v } as never),
          () => f.buildMessages([], { contextPrefix: v === 'x' ? 5 : v } as never),
          () => f.buildMessages([], { cacheTtl: v } as never),
          () => f.buildMessages([], { hasCacheMarker: v } as never),
          () => f.formatToolResults(v as never),
          () => f.createStreamParser().processChunk((v === 'x' ? 7 : v) as never),
        ]
        for (const call of calls) {
          let caught: unknown
          try {
            call()
          } catch (e) {
            caught = e
          }
          expect(ValidationError.isInstance(caught), `${f.name} ${JSON.stringify(v)}`).toBe(true)
        }
      }
      expect(() => f.buildMessages([], null as never)).toThrow(ValidationError)
      expect(() => f.parseToolCalls(undefined as never)).not.toThrow(TypeError)
    }
  })

  test('tool call inputs with no JSON form throw ValidationError', () => {
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const msgs: Message[] = [
      textMessage('user', 'go'),
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'c', name: 't', input: { v: circular } }],
      },
    ]
    expect(() => new AnthropicXmlFormatter().buildMessages(msgs)).toThrow(ValidationError)
    expect(() => new ChatMLFormatter().buildMessages(msgs)).toThrow(ValidationError)
  })

  test('bad constructor options throw ConfigurationError', () => {
    const bad: Array<() => unknown> = [
      () => new AnthropicXmlFormatter({ unsupportedMedia: 'ignore' as never }),
      () => new AnthropicXmlFormatter({ openingText: '  ' }),
      () => new ChatMLFormatter({ unsupportedMedia: 'drop' as never }),
      () => new CompletionsFormatter({ specialTokens: 'allow' as never }),
      () => new CompletionsFormatter({ unsupportedMedia: 'keep' as never }),
      () => new CompletionsFormatter({ eotToken: 5 as never }),
      () => new CompletionsFormatter({ warnOnStrip: 'no' as never }),
      () => new ChatMLFormatter({ preset: 'llama2' as never }),
      () => new ChatMLFormatter({ toolFormat: 'yaml' as never }),
      () => new ChatMLFormatter({ template: { begin: 1 } as never }),
      () => new ChatMLFormatter({ endToken: 3 as never }),
      () => new ChatMLFormatter({ bos: 'yes' as never }),
      () => new AnthropicXmlFormatter({ unsupportedMedia: 'split-ish' as never }),
      () => new AnthropicXmlFormatter({ namespaces: 'antml' as never }),
    ]
    for (const make of bad) expect(make).toThrow(ConfigurationError)
  })
})
