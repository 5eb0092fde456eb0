import { textMessage, ValidationError } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'

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
})
