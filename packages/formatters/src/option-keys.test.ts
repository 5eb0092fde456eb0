// Every options object of the package refuses keys it does not have (issue 45, seed 004): an
// option under the design document's name (`systemPrompt`) used to be dropped without a word.
import { ConfigurationError, type Message, textMessage, ValidationError } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { ChatMLFormatter } from './chatml-formatter.js'
import { ChatMLStreamParser } from './chatml-parser.js'
import { CompletionsFormatter } from './completions-formatter.js'
import { NativeFormatter } from './native-formatter.js'
import { NativeToolStreamParser } from './native-tool-parser.js'
import type { Formatter } from './types.js'
import { XmlStreamParser } from './xml-stream-parser.js'
import { parseXmlToolCalls } from './xml-tools.js'

const formatters: Array<[string, () => Formatter]> = [
  ['anthropic-xml', () => new AnthropicXmlFormatter()],
  ['native', () => new NativeFormatter()],
  ['chatml', () => new ChatMLFormatter()],
  ['chatml native tools', () => new ChatMLFormatter({ toolFormat: 'native' })],
  ['completions', () => new CompletionsFormatter()],
]

const hi = [textMessage('user', 'Hi')]

/** The `ValidationError` `fn` throws, or a failure when it throws nothing or something else. */
function refusal(fn: () => unknown): ValidationError {
  try {
    fn()
  } catch (error) {
    if (ValidationError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a ValidationError, nothing was thrown')
}

describe.each(formatters)('%s buildMessages', (_name, make) => {
  test.each([
    ['systemPrompt', 'S', '`systemPrompt` is `system` here'],
    ['assistantParticipant', 'Claude', '`assistantParticipant` is `assistantName` here'],
    ['humanParticipant', 'Human', '`humanParticipant` is `userName` here'],
    [
      'participantMode',
      'multiuser',
      '`participantMode` is `new NativeFormatter({ participantMode })` here',
    ],
    [
      'warnOnImageStrip',
      false,
      '`warnOnImageStrip` is `new AnthropicXmlFormatter({ warnOnStrip })` here',
    ],
    [
      'toolmode',
      'native',
      'unknown option `toolmode`: `toolMode` is `new AnthropicXmlFormatter({ toolMode })` here',
    ],
    ['prefil', 'x', 'unknown option `prefil`'],
    ['Stop_Sequences', ['x'], 'did you mean `stopSequences`?'],
  ])('refuses %s, typed, naming ours', (key, value, says) => {
    const error = refusal(() => make().buildMessages(hi, { [key]: value } as never))
    expect(error.code).toBe('validation_error')
    expect(error.message).toContain(says)
    expect(error.issues).toEqual([{ path: key, message: expect.stringContaining(says) }])
  })

  test('names every unknown key at once', () => {
    const error = refusal(() =>
      make().buildMessages(hi, { systemPrompt: 'S', nameFormat: 'x', system: 'ok' } as never),
    )
    expect(error.issues.map((i) => i.path)).toEqual(['systemPrompt', 'nameFormat'])
  })

  test("thinking: { enabled } is the seed's shape of the flag", () => {
    const f = make()
    expect(f.buildMessages(hi, { thinking: { enabled: true } })).toEqual(
      f.buildMessages(hi, { thinking: true }),
    )
    expect(f.buildMessages(hi, { thinking: { enabled: false } })).toEqual(
      f.buildMessages(hi, { thinking: false }),
    )
    expect(
      refusal(() => f.buildMessages(hi, { thinking: { enabled: 'yes' } } as never)).message,
    ).toContain('expected a boolean or { enabled: boolean }')
    expect(
      refusal(() => f.buildMessages(hi, { thinking: { enabled: true, budgetTokens: 9 } } as never))
        .message,
    ).toContain('`budgetTokens` is `runAgent({ thinking: { budgetTokens } })` here')
  })

  test('parser options: unknown keys are refused too', () => {
    const f = make()
    for (const call of [
      () => f.createStreamParser({ tool: [] } as never),
      () => f.parseToolCalls('x', { tool: [] } as never),
      () => f.hasToolUse('x', { tool: [] } as never),
    ]) {
      expect(refusal(call).message).toContain('unknown option `tool`')
    }
    expect(() => f.createStreamParser({ tools: [] })).not.toThrow()
  })
})

describe('constructors and parsers', () => {
  test.each([
    [
      'AnthropicXmlFormatter',
      () => new AnthropicXmlFormatter({ toolmode: 'native' } as never),
      'did you mean `toolMode`?',
    ],
    [
      'AnthropicXmlFormatter',
      () => new AnthropicXmlFormatter({ warnOnImageStrip: false } as never),
      '`warnOnImageStrip` is `warnOnStrip` here',
    ],
    [
      'AnthropicXmlFormatter',
      () => new AnthropicXmlFormatter({ nameFormat: '{name}>' } as never),
      '`nameFormat` is `participantFormat` here',
    ],
    [
      'AnthropicXmlFormatter',
      () => new AnthropicXmlFormatter({ systemPrompt: 'S' } as never),
      '`systemPrompt` is `buildMessages(messages, { system })` here',
    ],
    [
      'NativeFormatter',
      () => new NativeFormatter({ participantFormat: '{name}:' } as never),
      '`participantFormat` is `nameFormat` here',
    ],
    [
      'NativeFormatter',
      () => new NativeFormatter({ participant_mode: 'multiuser' } as never),
      'did you mean `participantMode`?',
    ],
    [
      'CompletionsFormatter',
      () => new CompletionsFormatter({ warnOnImageStrip: false } as never),
      '`warnOnImageStrip` is `warnOnStrip` here',
    ],
    [
      'CompletionsFormatter',
      () => new CompletionsFormatter({ eot: 'x' } as never),
      'unknown option `eot`',
    ],
    [
      'ChatMLFormatter',
      () => new ChatMLFormatter({ toolformat: 'xml' } as never),
      'did you mean `toolFormat`?',
    ],
    [
      'ChatMLFormatter template',
      () =>
        new ChatMLFormatter({
          template: {
            begin: '',
            user: { open: '', close: '' },
            assistant: { open: '', close: '' },
            trim: false,
            alternate: false,
            stopSequences: [],
            specialTokens: [],
            stops: [],
          },
        } as never),
      'unknown option `stops`',
    ],
    [
      'XmlStreamParser',
      () => new XmlStreamParser({ namespace: [] } as never),
      'did you mean `namespaces`?',
    ],
    [
      'ChatMLStreamParser',
      () => new ChatMLStreamParser({ idprefix: 'x' } as never),
      'did you mean `idPrefix`?',
    ],
    [
      'NativeToolStreamParser',
      () =>
        new NativeToolStreamParser(
          { marker: '[TOOL_CALLS]', bareJson: false } as never,
          { idprefix: 'x' } as never,
        ),
      'did you mean `idPrefix`?',
    ],
    [
      'parseXmlToolCalls',
      () => parseXmlToolCalls('', { thinking_tag: 'think' } as never),
      'did you mean `thinkingTag`?',
    ],
  ])('%s refuses an unknown key, typed', (_name, make, says) => {
    expect(refusal(make).message).toContain(says)
  })

  test('an own key is never taken for an inherited one, and a good options object passes', () => {
    const options = Object.create({ toolmode: 'native' }) as object
    expect(new AnthropicXmlFormatter(options).toolMode).toBe('xml')
    expect(new AnthropicXmlFormatter({ toolMode: 'native' }).toolMode).toBe('native')
  })
})

describe('participantFormat (AnthropicXmlFormatter)', () => {
  const conversation: Message[] = [
    textMessage('user', 'Is it warm?', { participant: 'Alice' }),
    textMessage('assistant', 'Yes.'),
    textMessage('user', 'Thanks', { participant: 'Bob' }),
  ]

  test("the default is the seed's `{name}:`", () => {
    const request = new AnthropicXmlFormatter({ participantFormat: '{name}:' }).buildMessages(
      conversation,
    )
    expect(request).toEqual(new AnthropicXmlFormatter().buildMessages(conversation))
  })

  test('a custom label writes every speaker, the open turn and the stops', () => {
    const request = new AnthropicXmlFormatter({ participantFormat: '[{name}]' }).buildMessages(
      conversation,
      { assistantName: 'Claude', thinking: true },
    )
    const text = request.messages[1]?.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    expect(text).toBe('[Alice] Is it warm?\n\n[Claude] Yes.\n\n[Bob] Thanks\n\n[Claude] <thinking>')
    expect(request.stopSequences).toEqual(['\n[Bob]', '\n[Alice]'])
    expect(request.assistantPrefill).toBe(' <thinking>')
  })

  test.each(['{name}: ', 'Name:', '{name}{name}', ' {name}', '{name}\n:', 42])(
    'refuses %j with a ConfigurationError',
    (format) => {
      expect(() => new AnthropicXmlFormatter({ participantFormat: format as string })).toThrow(
        ConfigurationError,
      )
    },
  )
})

describe('nameFormat', () => {
  test("NativeFormatter multiuser: the label prefixes each user's text", () => {
    const request = new NativeFormatter({
      participantMode: 'multiuser',
      nameFormat: '<{name}> ',
    }).buildMessages([
      textMessage('user', 'Hi', { participant: 'Alice' }),
      {
        role: 'user',
        participant: 'Bob',
        content: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }],
      },
    ])
    expect(request.messages[0]?.content).toEqual([
      { type: 'text', text: '<Alice> Hi' },
      { type: 'text', text: '\n\n<Bob>' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ])
  })

  test("NativeFormatter: the default is the seed's `{name}: `; simple mode takes no nameFormat", () => {
    const messages = [textMessage('user', 'Hi', { participant: 'Alice' })]
    const multi = (nameFormat?: string) =>
      new NativeFormatter({
        participantMode: 'multiuser',
        ...(nameFormat === undefined ? {} : { nameFormat }),
      }).buildMessages(messages)
    expect(multi('{name}: ')).toEqual(multi())
    expect(multi()).toMatchObject({ messages: [{ content: [{ text: 'Alice: Hi' }] }] })
    expect(() => new NativeFormatter({ nameFormat: '{name}: ' })).toThrow(ConfigurationError)
  })

  test('CompletionsFormatter: messages, the open turn, a continued turn, the prefill and the stops', () => {
    const f = new CompletionsFormatter({ nameFormat: '### {name}:\n', eotToken: '' })
    const open = f.buildMessages([textMessage('user', 'Hi', { participant: 'Alice' })], {
      prefill: 'Hello',
    })
    expect(open.prompt).toBe('### Alice:\nHi\n\n### Assistant:\nHello')
    expect(open.assistantPrefill).toBe('\nHello')
    expect(open.stopSequences).toEqual(['\n### Alice:'])
    const continued = f.buildMessages([
      textMessage('user', 'Hi', { participant: 'Alice' }),
      textMessage('assistant', 'Partial '),
    ])
    expect(continued.prompt).toBe('### Alice:\nHi\n\n### Assistant:\nPartial')
    expect(new CompletionsFormatter({ nameFormat: '{name}: ' }).buildMessages(hi)).toEqual(
      new CompletionsFormatter().buildMessages(hi),
    )
  })

  test("CompletionsFormatter: userName 'Human' gives the seed's speaker", () => {
    const request = new CompletionsFormatter().buildMessages(hi, { userName: 'Human' })
    expect(request.prompt).toBe('Human: Hi<|eot|>\n\nAssistant:')
    expect(request.stopSequences).toEqual(['\nHuman:', '<|eot|>'])
  })

  test.each(['name: ', '{name}{name}', '\n{name}', '{na\nme}{name}'])('refuses %j', (format) => {
    expect(() => new CompletionsFormatter({ nameFormat: format })).toThrow(ConfigurationError)
    expect(() => new NativeFormatter({ participantMode: 'multiuser', nameFormat: format })).toThrow(
      ConfigurationError,
    )
  })
})

describe('formatToolResults names a real position', () => {
  const results = [
    {
      type: 'tool_result' as const,
      toolCallId: 'toolu_a',
      content: [{ type: 'text' as const, text: 'ok' }],
      isError: false,
    },
    {
      type: 'tool_result' as const,
      toolCallId: 'toolu_b',
      content: [{ type: 'image' as const, mediaType: 'image/png' as const, data: 'AAAA' }],
      isError: false,
    },
  ]

  test.each([
    ['anthropic-xml', new AnthropicXmlFormatter()],
    ['chatml', new ChatMLFormatter()],
  ])('%s', (_name, formatter) => {
    let message = ''
    let details: unknown
    try {
      formatter.formatToolResults(results)
    } catch (error) {
      message = (error as Error).message
      details = (error as { details?: unknown }).details
    }
    expect(message).toContain('tool result 1 (tool call toolu_b)')
    expect(message).not.toContain('-1')
    expect(details).toMatchObject({ resultIndex: 1, toolCallId: 'toolu_b' })
  })
})
