import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  blockArb,
  CODING_EXCHANGE,
  CODING_TOOLS,
  messageArb,
  toolArb,
} from '../../../test-utils/request-fixtures.js'
import { ValidationError } from './errors.js'
import { estimateRequestTokens } from './message-estimate.js'
import type { ContentBlock, Message, ToolDefinition } from './message-schemas.js'
import { createTokenCounter, defaultTokenCounter, type TokenCounter } from './tokens.js'

/** One token per character: makes expectations exact. */
const chars: TokenCounter = { id: 'chars', kind: 'exact', count: (t) => t.length }
const messages: Message[] = CODING_EXCHANGE
const tools: ToolDefinition[] = CODING_TOOLS
const one = (message: Message, counter: TokenCounter = chars) =>
  estimateRequestTokens({ messages: [message] }, counter)

describe('estimateRequestTokens', () => {
  test('counts each kind of block of a real exchange by the one rule', () => {
    const [ask, think, read, shot, screenshot, answer, chart] = messages as [
      Message,
      Message,
      Message,
      Message,
      Message,
      Message,
      Message,
    ]
    const textOf = (m: Message, n: number) => {
      const b = m.content[n] as ContentBlock
      if (b.type === 'text') return b.text
      throw new Error(`block ${n} is ${b.type}`)
    }
    // 4 per message for the role and framing, plus its text
    expect(one(ask)).toBe(4 + textOf(ask, 0).length)
    // thinking (not its signature), redacted thinking's data, text, and a call's raw text
    const [thinking, redacted, , call] = think.content as [
      { thinking: string },
      { data: string },
      ContentBlock,
      { name: string; raw: string },
    ]
    expect(one(think)).toBe(
      4 +
        thinking.thinking.length +
        redacted.data.length +
        textOf(think, 2).length +
        call.name.length +
        call.raw.length,
    )
    // a call without raw: its input as JSON
    expect(one(shot)).toBe(
      4 + textOf(shot, 0).length + 'screenshot'.length + '{"url":"/dashboard/late"}'.length,
    )
    // a tool result: its parts, an image 1,600 tokens wherever it stands
    expect(one(screenshot)).toBe(4 + 'Screenshot of /dashboard/late (1280×800).'.length + 1600)
    expect(one(chart)).toBe(4 + textOf(chart, 0).length + 1600)
    expect(one(answer)).toBe(4 + textOf(answer, 0).length)
    const total = estimateRequestTokens({ messages }, chars)
    expect(total).toBe(messages.reduce((sum, m) => sum + one(m), 0))
    expect(read.content[0]?.type).toBe('tool_result')
  })

  test('counts a tool definition as its name, description and schema, one per line', () => {
    const [readFile] = tools as [ToolDefinition]
    expect(estimateRequestTokens({ tools: [readFile] }, chars)).toBe(
      `${readFile.name}\n${readFile.description}\n${JSON.stringify(readFile.inputSchema)}`.length,
    )
    expect(estimateRequestTokens({ messages, tools }, createTokenCounter())).toBe(
      estimateRequestTokens({ messages }, createTokenCounter()) +
        estimateRequestTokens({ tools }, createTokenCounter()),
    )
    expect(estimateRequestTokens({}, chars)).toBe(0)
  })

  test('a count that is not a finite number above 0 counts nothing', () => {
    for (const bad of [Number.NaN, -3, Number.POSITIVE_INFINITY]) {
      const broken: TokenCounter = { id: 'broken', kind: 'estimate', count: () => bad }
      expect(estimateRequestTokens({ messages, tools }, broken)).toBe(
        4 * messages.length + 1600 * 2,
      )
    }
  })

  test('a call input that is not JSON (a cycle) is counted as text, not thrown', () => {
    const input: Record<string, unknown> = {}
    input.self = input
    const call: Message = {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'c', name: 'loop', input }],
    }
    expect(one(call)).toBe(4 + 'loop'.length + '[object Object]'.length)
  })

  test('refuses what is not a request, a message list, a tool list or a counter', () => {
    const bad: Array<[unknown, unknown, RegExp]> = [
      [null, chars, /request must be an object/],
      [{ messages: 'hi' }, chars, /request\.messages must be an array/],
      [{ messages: [null] }, chars, /request\.messages\[0\] must be an object/],
      [{ messages: [{ role: 'user' }] }, chars, /request\.messages\[0\]\.content must be an array/],
      [{ tools: {} }, chars, /request\.tools must be an array/],
      [{ tools: [7] }, chars, /request\.tools\[0\] must be an object/],
      [{ messages }, {}, /counter must be a TokenCounter/],
    ]
    for (const [request, counter, message] of bad) {
      const call = () => estimateRequestTokens(request as never, counter as never)
      expect(call).toThrow(ValidationError)
      expect(call).toThrow(message)
    }
  })

  test('property: the estimate adds up message by message and tool by tool', () => {
    fc.assert(
      fc.property(
        fc.array(messageArb, { maxLength: 5 }),
        fc.array(toolArb, { maxLength: 3 }),
        (ms, ts) => {
          const total = estimateRequestTokens({ messages: ms, tools: ts }, defaultTokenCounter)
          let sum = 0
          for (const m of ms) sum += estimateRequestTokens({ messages: [m] }, defaultTokenCounter)
          for (const t of ts) sum += estimateRequestTokens({ tools: [t] }, defaultTokenCounter)
          expect(total).toBe(sum)
        },
      ),
      { numRuns: 300 },
    )
  })

  test('property: more content never lowers the estimate (a block, a message, a tool, longer text)', () => {
    const counter = createTokenCounter()
    fc.assert(
      fc.property(
        fc.array(messageArb, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        blockArb,
        messageArb,
        toolArb,
        fc.string({ minLength: 1, maxLength: 40 }),
        (ms, at, block, extra, tool, more) => {
          const before = estimateRequestTokens({ messages: ms }, counter)
          const n = at % ms.length
          const target = ms[n] as Message
          const withBlock = ms.map((m, i) =>
            i === n ? { ...m, content: [...m.content, block as ContentBlock] } : m,
          )
          expect(estimateRequestTokens({ messages: withBlock }, counter)).toBeGreaterThanOrEqual(
            before,
          )
          // a new message costs at least its framing
          expect(
            estimateRequestTokens({ messages: [...ms, extra] }, counter),
          ).toBeGreaterThanOrEqual(before + 4)
          expect(
            estimateRequestTokens({ messages: ms, tools: [tool] }, counter),
          ).toBeGreaterThanOrEqual(before)
          // longer text in a text block
          const longer = target.content.map((b) =>
            b.type === 'text' ? { ...b, text: b.text + more } : b,
          )
          const grown = ms.map((m, i) => (i === n ? { ...m, content: longer } : m))
          expect(estimateRequestTokens({ messages: grown }, counter)).toBeGreaterThanOrEqual(before)
        },
      ),
      { numRuns: 300 },
    )
  })
})
