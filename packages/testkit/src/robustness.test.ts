import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { onlyTypedErrors } from '../../../test-utils/typed-errors.js'
import {
  EmulatorConfigError,
  messageEvents,
  normalizeReply,
  sseFrame,
  startAnthropicEmulator,
  TestkitError,
} from './index.js'
import type { WireMessage } from './wire-types.js'

const anything = fc.anything({ withBigInt: true, withMap: true, withSet: true })

const message: WireMessage = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-4-5',
  content: [{ type: 'text', text: 'hello' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: {
    input_tokens: 1,
    output_tokens: 1,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  },
}

describe('exported helpers given bad arguments', () => {
  test('messageEvents: deltaChars 0 is an error, not an endless loop (regression)', () => {
    expect(() => messageEvents(message, 0)).toThrow(EmulatorConfigError)
    expect(() => messageEvents(message, 1.5)).toThrow('deltaChars must be a positive integer')
    expect(messageEvents(message, 1).filter((e) => e.type === 'content_block_delta')).toHaveLength(
      5,
    )
  })

  test('messageEvents and sseFrame throw EmulatorConfigError for wrong shapes', () => {
    expect(() => messageEvents([] as never)).toThrow(EmulatorConfigError)
    expect(() => messageEvents({ ...message, usage: undefined } as never)).toThrow(
      'messageEvents: message.usage.output_tokens must be a number',
    )
    expect(() =>
      messageEvents({ ...message, content: [{ type: 'tool_use', id: 'x', name: 'y' }] } as never),
    ).toThrow(EmulatorConfigError)
    expect(() => sseFrame(undefined as never)).toThrow(EmulatorConfigError)
    expect(() => sseFrame({ type: 'a\nevent: forged' })).toThrow(EmulatorConfigError)
    expect(() => sseFrame({ type: 'x', n: 1n } as never)).toThrow('not serializable to JSON')
    expect(sseFrame({ type: 'ping' })).toBe('event: ping\ndata: {"type":"ping"}\n\n')
  })

  test('property: helpers and options given anything throw a TestkitError or return a well-formed value', async () => {
    let returned = 0
    const typed = <T>(
      f: () => T | Promise<T>,
      check: (value: Awaited<T>) => void | Promise<void>,
    ) =>
      onlyTypedErrors(
        f,
        (value) => {
          returned++
          return check(value)
        },
        (error) => TestkitError.isInstance(error),
      )
    // anything, or a value of a shape the helpers accept, so the checks of returned values run
    const arg = fc.oneof(
      anything,
      fc.constant(message),
      fc.record({ type: fc.constantFrom('ping', 'message_stop'), n: fc.nat() }),
      fc.string(),
      fc.integer({ min: 1, max: 8 }),
      fc.record({ script: fc.constant([]), port: fc.constantFrom(0, -1, 70_000) }),
    )
    await fc.assert(
      fc.asyncProperty(arg, arg, async (a, b) => {
        await typed(
          () => messageEvents(a as never, b as never),
          (events) => {
            expect(events[0]?.type).toBe('message_start')
            expect(events.at(-1)?.type).toBe('message_stop')
          },
        )
        await typed(
          () => sseFrame(a as never),
          (frame) => {
            expect(frame).toMatch(/^event: [^\n]+\ndata: [^\n]*\n\n$/)
            expect(JSON.parse(frame.split('\n')[1]!.slice('data: '.length))).toEqual(
              JSON.parse(JSON.stringify(a)),
            )
          },
        )
        await typed(
          () => normalizeReply(a, 0),
          (reply) => {
            expect(Array.isArray(reply.blocks)).toBe(true)
            expect(typeof reply.usage).toBe('object')
          },
        )
        await typed(
          () => startAnthropicEmulator(a as never),
          async (emulator) => {
            expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
            await emulator.close()
          },
        )
      }),
      { numRuns: 300 },
    )
    expect(returned).toBeGreaterThan(100)
  })
})

const block = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('text', 'thinking', 'tool_use', 'tool_result', 'image', 'other'),
      text: anything,
      id: fc.oneof(fc.string(), anything),
      tool_use_id: fc.oneof(fc.string(), anything),
      name: anything,
      input: anything,
      content: anything,
      cache_control: fc.oneof(fc.constant({ type: 'ephemeral' }), anything),
    },
    { requiredKeys: ['type'] },
  ),
  anything,
)
const body = fc.record(
  {
    model: fc.oneof(fc.constantFrom('claude-haiku-4-5', 'claude-sonnet-4-6'), anything),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 100_000 }), anything),
    messages: fc.oneof(
      fc.array(
        fc.record(
          {
            role: fc.constantFrom('user', 'assistant', 'system'),
            content: fc.oneof(fc.string(), fc.array(block, { maxLength: 4 }), anything),
          },
          { requiredKeys: ['role'] },
        ),
        { maxLength: 5 },
      ),
      anything,
    ),
    system: fc.oneof(fc.string(), fc.array(block, { maxLength: 3 }), anything),
    stream: fc.oneof(fc.boolean(), anything),
    stop_sequences: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), anything),
    tools: anything,
    thinking: anything,
    prompt: fc.oneof(fc.string(), anything),
    stop: anything,
  },
  { requiredKeys: [] },
)

test('property: any JSON body gets a 200 or a 4xx API error, never a 5xx or a crash', async () => {
  const emulator = await startAnthropicEmulator({
    script: (req) => (req.prefill ? `${req.prefill} and more` : 'hello [stop] world'),
  })
  try {
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.constantFrom('/v1/messages', '/v1/messages/count_tokens', '/v1/completions'),
        async (b, path) => {
          const res = await fetch(emulator.url + path, {
            method: 'POST',
            headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
            body: JSON.stringify(b, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)),
          })
          const text = await res.text()
          expect(res.status, text).toBeLessThan(500)
          if (res.status !== 200) expect(JSON.parse(text)).toHaveProperty('error')
        },
      ),
      { numRuns: 400 },
    )
    expect(emulator.failures).toEqual([])
  } finally {
    await emulator.close()
  }
}, 60_000)
