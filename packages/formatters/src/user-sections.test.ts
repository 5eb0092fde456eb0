import { type Message, type Section, textMessage, ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { ChatMLFormatter } from './chatml-formatter.js'
import { NativeFormatter } from './native-formatter.js'
import { currentUserTurn, withUserSections } from './user-sections.js'

const section = (id: string, text: string, placement?: 'before' | 'after'): Section => ({
  id,
  text,
  priority: 10,
  cache: 'volatile',
  ...(placement ? { placement } : {}),
})

const call = { type: 'tool_call' as const, id: 't1', name: 'read', input: {} }
const result = {
  type: 'tool_result' as const,
  toolCallId: 't1',
  content: [{ type: 'text' as const, text: 'file' }],
  isError: false,
}

describe('withUserSections', () => {
  test('plan before the user text, hint and files after it, one text block', () => {
    const out = withUserSections(
      [textMessage('user', 'Fix the bug.')],
      [
        section('hint', 'Context: orders.ndjson'),
        section('plan', '## Your Plan\n1. read', 'before'),
        section('files', '#### a.ts'),
      ],
    )
    expect(out).toEqual([
      textMessage(
        'user',
        '## Your Plan\n1. read\n\nFix the bug.\n\nContext: orders.ndjson\n\n#### a.ts',
      ),
    ])
  })

  test('in a tool loop the sections stay with what the user asked, not the latest results', () => {
    const messages: Message[] = [
      textMessage('user', 'old question'),
      textMessage('assistant', 'old answer'),
      textMessage('user', 'Read it.'),
      { role: 'assistant', content: [call] },
      { role: 'user', content: [result] },
    ]
    expect(currentUserTurn(messages)).toBe(2)
    const out = withUserSections(messages, [section('hint', 'HINT')])
    expect(out[2]).toEqual(textMessage('user', 'Read it.\n\nHINT'))
    expect(out[4]).toBe(messages[4])
    expect(messages[2]).toEqual(textMessage('user', 'Read it.')) // input untouched
  })

  test('no user turn: the sections become one; no text block: blocks around the content', () => {
    expect(withUserSections([], [section('a', 'A')])).toEqual([textMessage('user', 'A')])
    const image: Message = {
      role: 'user',
      content: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }],
    }
    const out = withUserSections([image], [section('p', 'P', 'before'), section('h', 'H')])
    expect(out[0]?.content.map((b) => b.type)).toEqual(['text', 'image', 'text'])
    expect(withUserSections([image], [section('e', '')])).toEqual([image])
  })

  test('every formatter renders userSections into the current user turn', () => {
    const messages = [textMessage('user', 'Q?')]
    const userSections = [section('plan', 'PLAN', 'before'), section('hint', 'HINT')]
    const native = new NativeFormatter().buildMessages(messages, { userSections })
    expect(native.messages[0]?.content).toEqual([{ type: 'text', text: 'PLAN\n\nQ?\n\nHINT' }])
    const xml = new AnthropicXmlFormatter().buildMessages(messages, { userSections })
    const transcript = xml.messages.flatMap((m) =>
      m.content.map((b) => (b.type === 'text' ? b.text : '')),
    )
    expect(transcript.join('')).toContain('User: PLAN\n\nQ?\n\nHINT')
    const chatml = new ChatMLFormatter().buildMessages(messages, { userSections })
    expect(chatml.prompt).toContain('<|im_start|>user\nPLAN\n\nQ?\n\nHINT<|im_end|>')
    expect(() =>
      new NativeFormatter().buildMessages(messages, { userSections: [{ id: 'x' }] as never }),
    ).toThrow(ValidationError)
  })

  test('property: the user text survives whole, between the before and after sections', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.array(fc.tuple(fc.string({ minLength: 1 }), fc.boolean()), { maxLength: 4 }),
        (text, specs) => {
          const sections = specs.map(([t, before], i) =>
            section(`s${i}`, t, before ? 'before' : 'after'),
          )
          const [out] = withUserSections([textMessage('user', text)], sections)
          const rendered = out?.content[0]?.type === 'text' ? out.content[0].text : ''
          const before = sections.filter((s) => s.placement === 'before').map((s) => s.text)
          const after = sections.filter((s) => s.placement !== 'before').map((s) => s.text)
          expect(rendered).toBe([...before, text, ...after].join('\n\n'))
        },
      ),
    )
  })
})
