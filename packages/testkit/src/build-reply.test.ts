import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { buildMessage, findStop } from './build-reply.js'
import type { ReplyBlock } from './script.js'

const ctx = (prefill?: string, stopSequences: string[] = []) => ({
  messageId: 'msg_1',
  model: 'm',
  prefill,
  stopSequences,
  inputTokens: 7,
  toolId: () => 'toolu_gen',
  signature: () => 'sig_gen',
})

describe('buildMessage', () => {
  test('stop sequences: the kept text is a prefix without any stop sequence; the match is reported', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }),
        fc.array(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 3 }),
        (text, stops) => {
          const m = buildMessage([{ type: 'text', text }], undefined, {}, ctx(undefined, stops))
          const kept = m.content[0]?.type === 'text' ? m.content[0].text : ''
          expect(text.startsWith(kept)).toBe(true)
          const hit = findStop(text, stops)
          if (hit) {
            expect(m.stop_reason).toBe('stop_sequence')
            expect(m.stop_sequence).toBe(hit.sequence)
            expect(kept.length).toBe(hit.at)
            expect(text.slice(kept.length).startsWith(hit.sequence)).toBe(true)
            // No stop sequence ends inside the kept text.
            for (const s of stops) expect(findStop(kept, [s])).toBeUndefined()
          } else {
            expect(kept).toBe(text)
            expect(m.stop_reason).toBe('end_turn')
            expect(m.stop_sequence).toBeNull()
          }
        },
      ),
    )
  })

  test('prefill: a text that repeats the prefill continues it; other text is kept whole', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        (prefill, rest) => {
          const echoed = buildMessage(
            [{ type: 'text', text: prefill + rest }],
            undefined,
            {},
            ctx(prefill),
          )
          expect(echoed.content).toEqual([{ type: 'text', text: rest }])
          fc.pre(!prefill.startsWith('\u0000'))
          const other = `\u0000${rest}`
          const kept = buildMessage([{ type: 'text', text: other }], undefined, {}, ctx(prefill))
          expect(kept.content).toEqual([{ type: 'text', text: other }])
        },
      ),
    )
  })

  test('defaults: tool_use stop reason, generated ids and signatures, usage overrides', () => {
    const blocks: ReplyBlock[] = [
      { type: 'thinking', thinking: 'hm' },
      { type: 'tool_use', name: 'f', input: { a: 1 } },
    ]
    const m = buildMessage(
      blocks,
      undefined,
      { cache_read_input_tokens: 5, output_tokens: 9 },
      ctx(),
    )
    expect(m.stop_reason).toBe('tool_use')
    expect(m.content).toEqual([
      { type: 'thinking', thinking: 'hm', signature: 'sig_gen' },
      { type: 'tool_use', id: 'toolu_gen', name: 'f', input: { a: 1 } },
    ])
    expect(m.usage).toEqual({
      input_tokens: 7,
      output_tokens: 9,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 5,
    })
    expect(buildMessage([{ type: 'text', text: 'x' }], 'max_tokens', {}, ctx()).stop_reason).toBe(
      'max_tokens',
    )
  })
})
