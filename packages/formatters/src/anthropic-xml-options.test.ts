import {
  type ContentBlock,
  type Message,
  type ToolDefinition,
  type ToolResultBlock,
  textMessage,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { parseAll } from './test-support.js'
import type { FormattedRequest } from './types.js'

function markers(req: FormattedRequest): unknown[] {
  return [...req.system, ...req.messages.flatMap((m) => m.content)].flatMap((b) =>
    'cache_control' in b && b.cache_control ? [b.cache_control] : [],
  )
}

describe('AnthropicXmlFormatter build options', () => {
  const f = new AnthropicXmlFormatter()

  test('a prefill after a partial answer is joined with the separator, not glued', () => {
    const msgs = [textMessage('user', 'Go'), textMessage('assistant', 'Partial answer ')]
    const req = f.buildMessages(msgs, { prefill: 'and more' })
    expect(req.assistantPrefill).toBe(' Partial answer\n\nand more')
    expect(req.messages[1]?.content).toEqual([
      { type: 'text', text: 'User: Go\n\nAssistant: Partial answer\n\nand more' },
    ])
    // a prefill that brings its own whitespace keeps it
    expect(f.buildMessages(msgs, { prefill: '\n[note]' }).assistantPrefill).toBe(
      ' Partial answer\n[note]',
    )
    const custom = new AnthropicXmlFormatter({ messageSeparator: '\n' })
    expect(custom.buildMessages(msgs, { prefill: 'x' }).assistantPrefill).toBe(' Partial answer\nx')
  })

  test('thinking after a partial answer is not opened, and says so', () => {
    const req = f.buildMessages([textMessage('user', 'Go'), textMessage('assistant', 'Half')], {
      thinking: true,
    })
    expect(req.assistantPrefill).toBe(' Half')
    expect(req.warnings.map((w) => w.code)).toEqual(['thinking_not_opened'])
    const fresh = f.buildMessages([textMessage('user', 'Go')], { thinking: true })
    expect(fresh.assistantPrefill).toBe(' <thinking>')
    expect(fresh.warnings).toEqual([])
  })

  test('contextPrefix text opens the transcript, with a cache breakpoint after it on request', () => {
    const req = f.buildMessages([textMessage('user', 'Hi', { participant: 'Ann' })], {
      contextPrefix: 'Earlier, on the forum:',
      cacheContextPrefix: true,
      cacheTtl: '1h',
    })
    expect(req.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '[Transcript start]' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: 'Earlier, on the forum:',
            cache_control: { type: 'ephemeral', ttl: '1h' },
          },
          { type: 'text', text: '\n\nAnn: Hi\n\nAssistant:' },
        ],
      },
    ])
    expect(req.cacheMarkersApplied).toBe(1)
  })

  test('contextPrefix messages come first and count as speakers', () => {
    const req = f.buildMessages([textMessage('user', 'Now?')], {
      contextPrefix: [
        textMessage('user', 'Seeded', { participant: 'Old' }),
        textMessage('assistant', 'Reply'),
      ],
      cacheContextPrefix: true,
    })
    const text = req.messages[1]?.content.map((b) => (b.type === 'text' ? b.text : '')) ?? []
    expect(text).toEqual(['Old: Seeded\n\nAssistant: Reply', '\n\nUser: Now?\n\nAssistant:'])
    expect(markers(req)).toEqual([{ type: 'ephemeral' }])
    expect(req.stopSequences).toEqual(['\nUser:', '\nOld:'])
  })

  test('hasCacheMarker decides per message; promptCaching: false places none at all', () => {
    const msgs = ['a', 'b', 'c', 'd'].map((t) => textMessage('user', t, { cacheBreakpoint: true }))
    const seen: Array<[string, number]> = []
    const req = f.buildMessages(msgs, {
      hasCacheMarker: (m, i) => {
        seen.push([m.content[0]?.type === 'text' ? m.content[0].text : '', i])
        return i === 1
      },
    })
    expect(seen).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
      ['d', 3],
    ])
    expect(req.messages[1]?.content[0]).toEqual({
      type: 'text',
      text: 'User: a\n\nUser: b',
      cache_control: { type: 'ephemeral' },
    })
    const none = f.buildMessages(msgs, {
      promptCaching: false,
      system: [{ id: 's', text: 'Stable', priority: 1, cache: 'stable' }],
      contextPrefix: 'p',
      cacheContextPrefix: true,
    })
    expect(markers(none)).toEqual([])
    expect(none.cacheMarkersApplied).toBe(0)
  })
})

describe('AnthropicXmlFormatter render → parse round trip', () => {
  const tool: ToolDefinition = {
    name: 'edit',
    description: '',
    inputSchema: { type: 'object', properties: { s: { type: 'string' }, n: { type: 'integer' } } },
  }
  const tricky = fc.constantFrom(
    '</thinking>',
    '</thinking>',
    '<thinking>',
    '</parameter>',
    '</invoke>',
    '</function_calls>',
    '</result>',
    '</function_results>',
    '&lt;',
    '&amp;',
    '&',
    '<',
    '>',
    '\n',
  )
  const str = fc
    .array(fc.oneof(tricky, fc.string({ maxLength: 4 })), { maxLength: 6 })
    .map((a) => a.join(''))
  const prose = fc.string({ minLength: 1, maxLength: 8 }).map((s) => s.replace(/[<\s]/g, 'x'))
  const block = fc.oneof(
    prose.map((text): ContentBlock => ({ type: 'text', text })),
    str.map((thinking): ContentBlock => ({ type: 'thinking', thinking })),
    fc
      .record({ s: str, n: fc.integer() }, { requiredKeys: [] })
      .map((input): ContentBlock => ({ type: 'tool_call', id: 'x', name: 'edit', input })),
  )
  const result = fc.record({ text: str, isError: fc.boolean() })

  test('property: text, thinking, tool calls and tool results come back as the same blocks', () => {
    const f = new AnthropicXmlFormatter()
    fc.assert(
      fc.property(
        fc.array(block, { minLength: 1, maxLength: 5 }),
        fc.array(result, { maxLength: 2 }),
        (blocks, results) => {
          const msgs: Message[] = [
            textMessage('user', 'go'),
            { role: 'assistant', content: blocks },
          ]
          const resultBlocks: ToolResultBlock[] = results.map((r, i) => ({
            type: 'tool_result',
            toolCallId: `c${i}`,
            content: r.text === '' ? [] : [{ type: 'text', text: r.text }],
            isError: r.isError,
          }))
          if (resultBlocks.length > 0) msgs.push({ role: 'user', content: resultBlocks })
          const req = f.buildMessages(msgs)
          const events = parseAll(f.createStreamParser({ tools: [tool] }), [
            req.assistantPrefill ?? '',
          ])
          const parsed: unknown[] = []
          for (const e of events) {
            if (e.type === 'text-delta' && e.text.trim() !== '')
              parsed.push({ text: e.text.trim() })
            if (e.type === 'thinking-delta') parsed.push({ thinking: e.text })
            if (
              e.type === 'thinking-start' &&
              (events[events.indexOf(e) + 1]?.type ?? '') === 'thinking-end'
            )
              parsed.push({ thinking: '' })
            if (e.type === 'tool-call-end') parsed.push({ input: e.call.input })
            if (e.type === 'tool-result') parsed.push({ result: e.result })
          }
          const expected: unknown[] = []
          for (const b of blocks) {
            const last = expected[expected.length - 1] as { text?: string } | undefined
            if (b.type === 'text' && last?.text !== undefined) last.text += b.text
            else if (b.type === 'text') expected.push({ text: b.text })
            else if (b.type === 'thinking') expected.push({ thinking: b.thinking })
            else if (b.type === 'tool_call') expected.push({ input: b.input })
          }
          for (const r of resultBlocks) expected.push({ result: r })
          expect(parsed).toEqual(expected)
        },
      ),
      { numRuns: 300 },
    )
  })
})
