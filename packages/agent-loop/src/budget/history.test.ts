import {
  type ContentBlock,
  createTokenCounter,
  estimateRequestTokens,
  type Message,
  type TokenCounter,
  ValidationError,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import * as z from 'zod'
import {
  LimitOptionsCheck,
  limitHistory,
  MISSING_TOOL_RESULT_TEXT,
  repairOrphans,
} from './history.js'

const user = (text: string, ...more: ContentBlock[]): Message => ({
  role: 'user',
  content: [{ type: 'text', text }, ...more],
})
const assistant = (text: string, ...calls: string[]): Message => ({
  role: 'assistant',
  content: [
    { type: 'text', text },
    ...calls.map((id) => ({ type: 'tool_call' as const, id, name: 'read', input: { id } })),
  ],
})
const result = (id: string, text = `result of ${id}`, isError = false): ContentBlock => ({
  type: 'tool_result',
  toolCallId: id,
  content: [{ type: 'text', text }],
  isError,
})
const results = (...blocks: ContentBlock[]): Message => ({ role: 'user', content: blocks })

/** Tool results must sit first in the message after their calls, one per call, in order. */
function assertApiValid(messages: readonly Message[]): void {
  let expected: string[] = []
  for (const [i, message] of messages.entries()) {
    const kinds = message.content.map((b) => b.type)
    if (message.role === 'assistant') {
      expect(expected, `message ${i}: results owed before an assistant message`).toEqual([])
      expect(kinds, `message ${i}: a tool result in an assistant message`).not.toContain(
        'tool_result',
      )
      expected = message.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []))
      continue
    }
    expect(kinds, `message ${i}: a tool call in a user message`).not.toContain('tool_call')
    const lead = message.content.findIndex((b) => b.type !== 'tool_result')
    const prefix = message.content.slice(0, lead < 0 ? message.content.length : lead)
    expect(
      prefix.map((b) => (b.type === 'tool_result' ? b.toolCallId : '')),
      `message ${i}`,
    ).toEqual(expected)
    expect(message.content.slice(prefix.length).map((b) => b.type)).not.toContain('tool_result')
    expected = []
  }
  expect(expected, 'the history ends with tool calls that have no results').toEqual([])
}

const isTurnStart = (m: Message) =>
  m.role === 'user' && !m.content.some((b) => b.type === 'tool_result')

/** Every text, tool-result text and tool-call id of a history, as one searchable string. */
function allText(messages: readonly Message[]): string {
  const parts: string[] = []
  const walk = (blocks: readonly ContentBlock[]) => {
    for (const b of blocks) {
      if (b.type === 'text') parts.push(b.text)
      else if (b.type === 'thinking') parts.push(b.thinking)
      else if (b.type === 'tool_call') parts.push(b.id)
      else if (b.type === 'tool_result') walk(b.content)
    }
  }
  for (const m of messages) walk(m.content)
  return parts.join('\u0001')
}

/** Arbitrary histories: turns, tool calls with all/some/no/shuffled/extra results, orphans. */
const historyArb: fc.Arbitrary<Message[]> = fc
  .array(
    fc.oneof(
      fc.record({ k: fc.constant('user' as const), text: fc.string({ maxLength: 30 }) }),
      fc.record({
        k: fc.constant('assistant' as const),
        text: fc.string({ maxLength: 30 }),
        calls: fc.integer({ min: 0, max: 3 }),
        image: fc.boolean(),
      }),
      fc.record({
        k: fc.constant('results' as const),
        pick: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 5 }),
        text: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
      }),
      fc.record({
        k: fc.constant('orphan' as const),
        id: fc.string({ minLength: 1, maxLength: 5 }),
      }),
      fc.record({ k: fc.constant('userCall' as const) }),
    ),
    { maxLength: 25 },
  )
  .map((segments) => {
    const out: Message[] = []
    let calls: string[] = []
    let next = 0
    for (const s of segments) {
      if (s.k === 'user') out.push(user(s.text))
      else if (s.k === 'assistant') {
        calls = Array.from({ length: s.calls }, () => `call_${next++}`)
        const message = assistant(s.text, ...calls)
        if (s.image) message.content.push({ type: 'image', mediaType: 'image/png', data: 'AAAA' })
        out.push(message)
      } else if (s.k === 'results') {
        // indexes past the calls make results for calls that do not exist (orphans)
        const blocks: ContentBlock[] = s.pick.map((p) => result(calls[p] ?? `ghost_${next++}`))
        if (s.text !== undefined) blocks.push({ type: 'text', text: s.text })
        if (blocks.length > 0) out.push(results(...blocks))
      } else if (s.k === 'orphan') out.push(results(result(`orphan_${s.id}`, 'lost?', true)))
      else {
        out.push({
          role: 'user',
          content: [{ type: 'tool_call', id: `ucall_${next++}`, name: 'x', input: {} }],
        })
      }
    }
    return out
  })

/** Histories a correct loop writes: every call answered in the next message, in order. */
const validHistoryArb: fc.Arbitrary<Message[]> = fc
  .array(
    fc.record({
      text: fc.string({ maxLength: 40 }),
      steps: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
      reply: fc.boolean(),
    }),
    { maxLength: 12 },
  )
  .map((turns) => {
    const out: Message[] = []
    let next = 0
    for (const turn of turns) {
      out.push(user(turn.text))
      for (const n of turn.steps) {
        const ids = Array.from({ length: n }, () => `c${next++}`)
        out.push(assistant('calling', ...ids))
        out.push(results(...ids.map((id) => result(id))))
      }
      if (turn.reply) out.push(assistant(`reply to ${turn.text}`))
    }
    return out
  })

const counter: TokenCounter = createTokenCounter()
const tokensOf = (messages: readonly Message[]) => estimateRequestTokens({ messages }, counter)

describe('repairOrphans', () => {
  test('gives a call without a result an error result, in a new message when none follows', () => {
    const history = [user('go'), assistant('two calls', 'a', 'b'), results(result('b'))]
    const repaired = repairOrphans(history)
    expect(repaired[2]?.content).toEqual([
      {
        type: 'tool_result',
        toolCallId: 'a',
        content: [{ type: 'text', text: MISSING_TOOL_RESULT_TEXT }],
        isError: true,
      },
      result('b'),
    ])
    const cutOff = repairOrphans([user('go'), assistant('calling', 'a')])
    expect(cutOff).toHaveLength(3)
    expect(cutOff[2]).toMatchObject({ role: 'user', content: [{ toolCallId: 'a', isError: true }] })
    const thenReply = repairOrphans([user('go'), assistant('calling', 'a'), assistant('more')])
    expect(thenReply.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
  })

  test('keeps a result without its call as text saying which call it answered', () => {
    const repaired = repairOrphans([user('hi'), results(result('gone', 'the data', true))])
    expect(repaired[1]?.content).toEqual([
      {
        type: 'text',
        text: '[Result of tool call gone, an error; the call is not in this history]\nthe data',
      },
    ])
  })

  test('puts results first, in call order, gathering them from the user messages after the call', () => {
    const repaired = repairOrphans([
      user('go'),
      assistant('calls', 'a', 'b'),
      user('note first', result('b')),
      results(result('a'), result('a', 'twice')),
    ])
    expect(repaired).toHaveLength(4)
    expect(repaired[2]?.content).toEqual([
      result('a'),
      result('b'),
      { type: 'text', text: 'note first' },
    ])
    expect(repaired[3]?.content).toEqual([
      { type: 'text', text: '[Result of tool call a; the call is not in this history]\ntwice' },
    ])
    assertApiValid(repaired)
  })

  test('returns a valid history as the very same message objects', () => {
    const history = [user('go'), assistant('c', 'a'), results(result('a')), assistant('done')]
    const repaired = repairOrphans(history)
    expect(repaired).toEqual(history)
    for (const [i, m] of repaired.entries()) expect(m).toBe(history[i])
  })

  test('rejects what is not a list of messages with a ValidationError', () => {
    expect(() => repairOrphans('x' as never)).toThrow(ValidationError)
    expect(() => repairOrphans([{ role: 'system', content: [] }] as never)).toThrow(ValidationError)
    expect(() => repairOrphans([null] as never)).toThrow(ValidationError)
  })

  test('property: the output is API-valid, idempotent, and loses no text, call or image', () => {
    fc.assert(
      fc.property(historyArb, (history) => {
        const before = structuredClone(history)
        const repaired = repairOrphans(history)
        expect(history).toEqual(before) // pure
        assertApiValid(repaired)
        const text = allText(repaired)
        for (const part of allText(history).split('\u0001')) expect(text).toContain(part)
        const images = (ms: readonly Message[]) =>
          ms.flatMap((m) => m.content).filter((b) => b.type === 'image').length
        expect(images(repaired)).toBe(images(history))
        const again = repairOrphans(repaired)
        expect(again).toEqual(repaired)
        for (const [i, m] of again.entries()) expect(m).toBe(repaired[i])
      }),
      { numRuns: 300 },
    )
  })

  test('property: a history a correct loop wrote comes back untouched', () => {
    fc.assert(
      fc.property(validHistoryArb, (history) => {
        const repaired = repairOrphans(history)
        expect(repaired).toHaveLength(history.length)
        for (const [i, m] of repaired.entries()) expect(m).toBe(history[i])
      }),
    )
  })
})

describe('limitHistory', () => {
  const long = [
    user('one'),
    assistant('calls', 'a'),
    results(result('a')),
    assistant('answer one'),
    user('two'),
    assistant('answer two'),
    user('three'),
    assistant('calls', 'b', 'c'),
    results(result('b'), result('c')),
    assistant('answer three'),
  ]

  test('keeps the last N user turns, cutting only where a turn starts', () => {
    expect(limitHistory(long, { turns: 1 })).toEqual(long.slice(6))
    expect(limitHistory(long, { turns: 2 })).toEqual(long.slice(4))
    expect(limitHistory(long, { turns: 5 })).toEqual(long)
    expect(limitHistory(long)).toEqual(long)
  })

  test('fits a token budget by whole turns and always keeps the newest turn', () => {
    const lastTwo = tokensOf(long.slice(4))
    expect(limitHistory(long, { tokens: lastTwo })).toEqual(long.slice(4))
    expect(limitHistory(long, { tokens: lastTwo - 1 })).toEqual(long.slice(6))
    expect(limitHistory(long, { tokens: 0 })).toEqual(long.slice(6))
    expect(limitHistory(long, { tokens: 1e9, turns: 2 })).toEqual(long.slice(4))
  })

  test('counts with the counter given, and images at a fixed price', () => {
    const chars: TokenCounter = { id: 'chars', kind: 'exact', count: (t) => t.length }
    const image: ContentBlock = { type: 'image', mediaType: 'image/png', data: 'AAAA' }
    // core's estimate: 4 per message, the text, 1,600 per image
    expect(estimateRequestTokens({ messages: [user('abcd', image)] }, chars)).toBe(4 + 4 + 1600)
    const history = [user('x'.repeat(100)), assistant('y'), user('z')]
    expect(limitHistory(history, { tokens: 20, counter: chars })).toEqual(history.slice(2))
    expect(limitHistory(history, { tokens: 200, counter: chars })).toEqual(history)
  })

  test('repairs a history that ends in unanswered tool calls', () => {
    const crashed = [user('go'), assistant('calling', 'a')]
    const limited = limitHistory(crashed, { turns: 1 })
    assertApiValid(limited)
    expect(limited[2]?.content[0]).toMatchObject({ toolCallId: 'a', isError: true })
  })

  test('rejects bad options with a ValidationError', () => {
    expect(() => limitHistory(long, { turns: 0 })).toThrow(ValidationError)
    expect(() => limitHistory(long, { turns: 1.5 })).toThrow(ValidationError)
    expect(() => limitHistory(long, { tokens: -1 })).toThrow(ValidationError)
    expect(() => limitHistory(long, { counter: {} as never })).toThrow(ValidationError)
    expect(() => limitHistory(long, { budget: 1 } as never)).toThrow(ValidationError)
  })

  test('property: a suffix of the repaired history, API-valid, starting on a turn, as much as fits', () => {
    fc.assert(
      fc.property(
        fc.oneof(historyArb, validHistoryArb),
        fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
        (history, turns, tokens) => {
          const repaired = repairOrphans(history)
          const limited = limitHistory(history, { turns, tokens })
          const cut = repaired.length - limited.length
          expect(limited).toEqual(repaired.slice(cut)) // a suffix, message for message
          assertApiValid(limited)
          const starts = repaired.flatMap((m, i) => (isTurnStart(m) ? [i] : []))
          const last = starts.at(-1)
          if (last === undefined) {
            expect(limited).toEqual(repaired)
            return
          }
          expect(cut).toBeLessThanOrEqual(last) // the newest turn is always kept
          if (cut > 0) expect(isTurnStart(limited[0] as Message)).toBe(true)
          const keptTurns = limited.filter(isTurnStart).length
          if (turns !== undefined) expect(keptTurns).toBeLessThanOrEqual(turns)
          if (tokens !== undefined && cut < last) {
            expect(tokensOf(limited)).toBeLessThanOrEqual(tokens)
          }
          if (cut > 0) {
            // one more turn (or the head before the first turn) would break a limit
            const earlier = starts.filter((s) => s < cut).at(-1) ?? 0
            const more = repaired.slice(earlier)
            const overTurns = turns !== undefined && more.filter(isTurnStart).length > turns
            const overTokens = tokens !== undefined && tokensOf(more) > tokens
            expect(overTurns || overTokens).toBe(true)
          }
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe('limitHistory options check (zod/mini)', () => {
  // The classic zod schema it replaced: the mini check must answer the same on every value.
  const classic = z.strictObject({
    turns: z.number().int().positive().optional(),
    tokens: z.number().nonnegative().optional(),
    counter: z
      .custom<TokenCounter>(
        (v) =>
          typeof v === 'object' &&
          v !== null &&
          typeof (v as { count?: unknown }).count === 'function',
      )
      .optional(),
  })
  const value = fc.oneof(
    fc.constantFrom(
      0,
      1,
      -1,
      2.5,
      2 ** 53,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '1',
      null,
      undefined,
    ),
    fc.integer({ min: -5, max: 10_000 }),
    fc.double(),
    fc.constantFrom({ count: () => 1 }, { count: 1 }, {}, [], () => 1),
  )
  const options = fc.dictionary(fc.constantFrom('turns', 'tokens', 'counter', 'other'), value, {
    maxKeys: 4,
  })

  test('property: accepts exactly what the classic schema accepts', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof(options, value), (v) => {
        const check = LimitOptionsCheck.safeParse(v).success
        expect(check).toBe(classic.safeParse(v).success)
        if (check) accepted++
      }),
      { numRuns: 3000 },
    )
    expect(accepted).toBeGreaterThan(300)
  })
})
