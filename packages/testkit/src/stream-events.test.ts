import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { jsonFragments, messageEvents, splitText, sseFrame } from './stream-events.js'
import { planChunks } from './transport.js'
import type { WireMessage, WireResponseBlock, WireStreamEvent } from './wire-types.js'

/** Rebuilds a message from its events the way a client does. */
function accumulate(events: readonly WireStreamEvent[]): WireMessage {
  let msg: WireMessage | undefined
  const json = new Map<number, string>()
  for (const e of events) {
    if (e.type === 'message_start') msg = structuredClone(e.message)
    else if (e.type === 'content_block_start')
      msg!.content[e.index] = structuredClone(e.content_block)
    else if (e.type === 'content_block_delta') {
      const b = msg!.content[e.index]!
      const d = e.delta
      if (d.type === 'text_delta' && b.type === 'text') b.text += d.text
      else if (d.type === 'thinking_delta' && b.type === 'thinking') b.thinking += d.thinking
      else if (d.type === 'signature_delta' && b.type === 'thinking') b.signature += d.signature
      else if (d.type === 'input_json_delta')
        json.set(e.index, (json.get(e.index) ?? '') + d.partial_json)
      else throw new Error(`delta ${d.type} on ${b.type}`)
    } else if (e.type === 'content_block_stop') {
      const b = msg!.content[e.index]!
      if (b.type === 'tool_use' && json.has(e.index)) b.input = JSON.parse(json.get(e.index)!)
    } else if (e.type === 'message_delta') {
      msg!.stop_reason = e.delta.stop_reason
      msg!.stop_sequence = e.delta.stop_sequence
      msg!.usage.output_tokens = e.usage.output_tokens
    }
  }
  return msg!
}

const arbBlock: fc.Arbitrary<WireResponseBlock> = fc.oneof(
  fc.record({
    type: fc.constant('text' as const),
    text: fc.string({ unit: 'grapheme', maxLength: 80 }),
  }),
  fc.record({
    type: fc.constant('thinking' as const),
    thinking: fc.string({ unit: 'grapheme', maxLength: 80 }),
    signature: fc.string({ minLength: 1, maxLength: 20 }),
  }),
  fc.record({
    type: fc.constant('tool_use' as const),
    id: fc.string({ minLength: 1, maxLength: 10 }).map((s) => `toolu_${s}`),
    name: fc.constantFrom('a', 'get_weather', 'run'),
    input: fc
      .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }))
      .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>),
  }),
  fc.record({
    type: fc.constant('redacted_thinking' as const),
    data: fc.base64String({ maxLength: 40 }),
  }),
)

const arbMessage: fc.Arbitrary<WireMessage> = fc.record({
  id: fc.constant('msg_1'),
  type: fc.constant('message' as const),
  role: fc.constant('assistant' as const),
  model: fc.constant('m'),
  content: fc.array(arbBlock, { maxLength: 5 }),
  stop_reason: fc.constantFrom('end_turn' as const, 'tool_use' as const, 'stop_sequence' as const),
  stop_sequence: fc.option(fc.string({ minLength: 1, maxLength: 5 }), { nil: null }),
  usage: fc.record({
    input_tokens: fc.nat(10_000),
    output_tokens: fc.nat(10_000),
    cache_creation_input_tokens: fc.nat(1000),
    cache_read_input_tokens: fc.nat(1000),
  }),
})

describe('messageEvents', () => {
  test('accumulating the events gives back the message (any content, any delta size)', () => {
    fc.assert(
      fc.property(arbMessage, fc.integer({ min: 1, max: 40 }), (message, size) => {
        expect(accumulate(messageEvents(message, size))).toEqual(message)
      }),
    )
  })

  test('shape: message_start has empty content; ping second; every tool input starts with an empty fragment', () => {
    fc.assert(
      fc.property(arbMessage, (message) => {
        const events = messageEvents(message)
        const first = events[0]
        expect(first?.type === 'message_start' && first.message.content).toEqual([])
        expect(events[1]).toEqual({ type: 'ping' })
        expect(events.at(-1)).toEqual({ type: 'message_stop' })
        events.forEach((e, i) => {
          if (e.type === 'content_block_start' && e.content_block.type === 'tool_use') {
            const next = events[i + 1]
            expect(next).toMatchObject({ delta: { type: 'input_json_delta', partial_json: '' } })
          }
        })
      }),
    )
  })

  test('sseFrame writes equal event and data types', () => {
    expect(sseFrame({ type: 'ping' })).toBe('event: ping\ndata: {"type":"ping"}\n\n')
  })
})

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

describe('splitting helpers', () => {
  test('splitText pieces join back, never split a surrogate pair, and respect the size', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.integer({ min: 1, max: 30 }),
        (text, size) => {
          const pieces = splitText(text, size)
          expect(pieces.join('')).toBe(text)
          for (const p of pieces) {
            expect(Array.from(p).length).toBeLessThanOrEqual(size)
            expect(LONE_SURROGATE.test(p)).toBe(false)
          }
        },
      ),
    )
  })

  test('jsonFragments start empty and join to the JSON', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), (input) => {
        const parts = jsonFragments(input)
        expect(parts[0]).toBe('')
        expect(JSON.parse(parts.join(''))).toEqual(JSON.parse(JSON.stringify(input)))
      }),
    )
  })

  test('planChunks keeps every byte in order for any write size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 10 }),
        fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
        (frames, size) => {
          const chunks = planChunks(frames, size)
          expect(Buffer.concat(chunks).toString('utf8')).toBe(frames.join(''))
          if (size !== undefined) for (const c of chunks) expect(c.length).toBeLessThanOrEqual(size)
        },
      ),
    )
  })
})
