import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { promptLayout } from './cache-prefix.js'
import { EmulatorConfigError, TestkitError } from './errors.js'
import { mergeTurns, parseMessagesRequest } from './parse-request.js'
import { blockTokens, requestTokens, textTokens, toolTokens } from './token-rule.js'
import type { WireMessagesRequest } from './wire-types.js'

function parse(body: Record<string, unknown>): WireMessagesRequest {
  const r = parseMessagesRequest({ model: 'm', max_tokens: 1, ...body }, true)
  if (!r.ok) throw new Error(r.message)
  return r.request
}

describe('the token rule', () => {
  test('each block is rounded up on its own; 3 per merged message; media are 1,000', () => {
    expect(textTokens('')).toBe(0)
    expect(textTokens('abcd')).toBe(1)
    expect(textTokens('abcde')).toBe(2)
    expect(blockTokens({ type: 'text', text: 'x'.repeat(400) })).toBe(100)
    expect(
      blockTokens({ type: 'thinking', thinking: 'abcdefgh', signature: 'sig-long-ignored' }),
    ).toBe(2)
    expect(blockTokens({ type: 'tool_use', id: 't', name: 'ab', input: { a: 1 } })).toBe(
      Math.ceil('ab{"a":1}'.length / 4),
    )
    expect(blockTokens({ type: 'tool_result', tool_use_id: 't', content: 'abcdefghi' })).toBe(3)
    expect(
      blockTokens({
        type: 'tool_result',
        tool_use_id: 't',
        content: [
          { type: 'text', text: 'abcde' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'x' } },
        ],
      }),
    ).toBe(2 + 1000)
    expect(blockTokens({ type: 'document', source: { type: 'text' } })).toBe(1000)
    const tool = { name: 'get', input_schema: { type: 'object' } }
    expect(toolTokens({ ...tool, cache_control: { type: 'ephemeral' } })).toBe(
      Math.ceil(JSON.stringify(tool).length / 4),
    )
    // 'hello' (2) + 3; two user turns merge into one: 'ab' (1) + 'cd' (1) + 3; system 'abcdefgh' (2)
    const request = parse({
      system: 'abcdefgh',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'ab' },
        { role: 'user', content: 'cd' },
      ],
    })
    expect(requestTokens(request)).toBe(2 + (2 + 3) + (1 + 3) + (1 + 1 + 3))
  })

  test('cache_control never changes the count', () => {
    const plain = parse({
      system: [{ type: 'text', text: 'abc' }],
      messages: [{ role: 'user', content: 'hi' }],
    })
    const marked = parse({
      system: [{ type: 'text', text: 'abc', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
        },
      ],
    })
    expect(requestTokens(marked)).toBe(requestTokens(plain))
  })

  const block = fc.oneof(
    fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 60 }) }),
    fc.record({
      type: fc.constant('image'),
      source: fc.constant({ type: 'base64', media_type: 'image/png', data: 'x' }),
    }),
  )
  const message = fc.record({
    role: fc.constantFrom('user', 'assistant'),
    content: fc.oneof(fc.string({ maxLength: 40 }), fc.array(block, { maxLength: 4 })),
  })

  test('property: the cache layout adds up to exactly the rule, prefix by prefix', () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 6 }),
        fc.array(fc.string({ maxLength: 50 }), { maxLength: 3 }),
        fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 3 }),
        (messages, system, toolNames) => {
          const request = parse({
            messages,
            system: system.map((text) => ({ type: 'text', text })),
            tools: toolNames.map((name) => ({ name, input_schema: { type: 'object' } })),
          })
          const layout = promptLayout(request, mergeTurns(request.messages), 'ns')
          expect(layout.total).toBe(requestTokens(request))
          const last = layout.prefixTokens[layout.prefixTokens.length - 1] ?? 0
          expect(Math.max(1, last)).toBe(layout.total)
          for (let i = 1; i < layout.prefixTokens.length; i++)
            expect(layout.prefixTokens[i]).toBeGreaterThanOrEqual(layout.prefixTokens[i - 1]!)
        },
      ),
    )
  })
})

test('a wrong argument is an EmulatorConfigError naming it, never a TypeError', () => {
  const request = parse({ messages: [{ role: 'user', content: 'hi there' }] })
  expect(requestTokens(request, mergeTurns(request.messages))).toBe(requestTokens(request))
  for (const bad of [null, undefined, 42, '']) {
    expect(() => requestTokens(bad as never)).toThrow(EmulatorConfigError)
    expect(() => blockTokens(bad as never)).toThrow(/blockTokens: block must be an object/)
    expect(() => toolTokens(bad as never)).toThrow(/toolTokens: tool must be an object/)
  }
  expect(() => requestTokens(request, {} as never)).toThrow(
    /requestTokens: merged must be an array/,
  )
  expect(() => textTokens(null as never)).toThrow(/textTokens: text must be a string, got null/)
  const e = new TestkitError(Object.create(null) as never, null as never)
  expect(TestkitError.isInstance(e)).toBe(true)
  expect(e.details).toEqual({})
})
