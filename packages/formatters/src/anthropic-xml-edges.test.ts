import { type Message, textMessage, ValidationError } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { UnsupportedContentError } from './errors.js'
import type { FormattedMessage } from './types.js'

function allText(messages: FormattedMessage[]): string {
  return messages
    .flatMap((m) => m.content)
    .map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))
    .join('')
}

const PNG = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' }

describe('AnthropicXmlFormatter, whitespace around images and options', () => {
  test('whitespace never becomes a text block of its own (the API rejects those)', () => {
    const req = new AnthropicXmlFormatter().buildMessages([
      {
        role: 'user',
        participant: 'Alice',
        content: [{ type: 'text', text: 'look' }, PNG, { type: 'text', text: '  ' }],
        cacheBreakpoint: true,
      },
      { role: 'user', participant: 'Bob', content: [PNG, { type: 'text', text: ' ' }] },
    ])
    expect(req.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '[Transcript start]' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Alice: look' }] },
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
      { role: 'assistant', content: [{ type: 'text', text: '\n  \n\nBob:' }] },
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.data } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: '\n \n\nAssistant:' }] },
    ])
    expect(req.cacheMarkersApplied).toBe(1)
  })

  test('build options of the wrong type throw ValidationError', () => {
    const f = new AnthropicXmlFormatter()
    const msgs = [textMessage('user', 'hi')]
    for (const options of [
      { prefill: 5 },
      { thinking: 'yes' },
      { tools: [{ name: 'bad name!', description: '', inputSchema: { type: 'object' } }] },
      { system: [{ id: 's' }] },
      { stopSequences: ['ok', 3] },
    ]) {
      expect(() => f.buildMessages(msgs, options as never)).toThrow(ValidationError)
    }
  })
  test('images in tool results: the turn is split around them by default; error or strip on request', () => {
    const msgs: Message[] = [
      textMessage('assistant', 'look'),
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolCallId: 't',
            content: [{ type: 'text', text: 'before' }, PNG, { type: 'text', text: 'after' }],
            isError: true,
          },
        ],
      },
    ]
    const split = new AnthropicXmlFormatter().buildMessages(msgs)
    expect(split.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '[Transcript start]' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: 'Assistant: look\n<function_results>\n<error tool_call_id="t">\nbefore\n',
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.data } },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: '\nafter\n</error>\n</function_results>' }],
      },
    ])
    expect(split.assistantPrefill).toBe('\nafter\n</error>\n</function_results>')
    expect(split.warnings).toEqual([])
    expect(() =>
      new AnthropicXmlFormatter({ unsupportedMedia: 'error' }).buildMessages(msgs),
    ).toThrow(UnsupportedContentError)
    const req = new AnthropicXmlFormatter({ unsupportedMedia: 'strip' }).buildMessages(msgs)
    expect(allText(req.messages)).toBe(
      '[Transcript start]Assistant: look\n<function_results>\n<error tool_call_id="t">\nbefore\n[image omitted]\nafter\n</error>\n</function_results>',
    )
    expect(req.warnings.map((w) => w.code)).toEqual(['image_stripped'])
    const quiet = new AnthropicXmlFormatter({ unsupportedMedia: 'strip', warnOnStrip: false })
    expect(quiet.buildMessages(msgs).warnings).toEqual([])
    const result = msgs[1]?.content[0]
    if (result?.type !== 'tool_result') throw new Error('fixture')
    // one string has no place for an image: 'split' and 'error' throw there
    expect(() => new AnthropicXmlFormatter().formatToolResults([result])).toThrow(
      UnsupportedContentError,
    )
    expect(
      new AnthropicXmlFormatter({ unsupportedMedia: 'strip' }).formatToolResults([result]),
    ).toBe(
      '<function_results>\n<error tool_call_id="t">\nbefore\n[image omitted]\nafter\n</error>\n</function_results>',
    )
  })
})
