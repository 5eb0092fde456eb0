/**
 * Issue 46: `sealMessages` checks and freezes a history once so that every later request may
 * trust its messages by identity. What it seals must be frozen all the way down (nothing a cache
 * relies on can change), what it refuses must be left exactly as it was, and the fast checks must
 * say of a sealed message what they say of a fresh copy of it.
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chatMessage } from '../../../test-utils/arbitraries.js'
import { ValidationError } from './errors.js'
import { isMessageArray } from './input-checks.js'
import type { Message } from './message-schemas.js'
import { textMessage } from './messages.js'
import { isSealedContent } from './sealed-content.js'
import { isSealedMessage, sealMessages } from './sealed-messages.js'

/** Every object reachable from `value`, `value` included. */
function objectsIn(value: unknown, out: object[] = []): object[] {
  if (typeof value !== 'object' || value === null) return out
  out.push(value)
  for (const item of Object.values(value)) objectsIn(item, out)
  return out
}

const toolTurn = (): Message[] => [
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading.' },
      { type: 'tool_call', id: 't1', name: 'read', input: { path: 'a.ts', lines: [1, 2] } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolCallId: 't1',
        content: [{ type: 'text', text: 'export {}' }],
        isError: false,
      },
    ],
  },
]

describe('sealMessages', () => {
  test('returns the list itself with every message frozen all the way down', () => {
    const list = toolTurn()
    expect(sealMessages(list)).toBe(list)
    expect(Object.isFrozen(list)).toBe(false) // the caller's list stays the caller's
    for (const message of list) {
      expect(isSealedMessage(message)).toBe(true)
      for (const object of objectsIn(message)) expect(Object.isFrozen(object)).toBe(true)
    }
    const call = list[0]?.content[1]
    expect(() => {
      if (call?.type === 'tool_call') (call.input as { path: string }).path = 'b.ts'
    }).toThrow(TypeError)
  })

  test('a copy that only sets cacheBreakpoint keeps the sealed content; an unsealed message is not sealed', () => {
    const [message] = sealMessages([textMessage('user', 'Hi')])
    const copy = { ...(message as Message), cacheBreakpoint: true }
    expect(isSealedContent(copy.content)).toBe(true)
    expect(isSealedMessage(copy)).toBe(false) // the copy itself may still change
    const frozenByHand = Object.freeze(textMessage('user', 'Hi'))
    expect(isSealedMessage(frozenByHand)).toBe(false) // its content array was never checked
    expect(isSealedMessage(null)).toBe(false)
    expect(isSealedMessage('Hi')).toBe(false)
  })

  test('an invalid message throws a ValidationError naming it, and nothing is frozen', () => {
    const good = textMessage('user', 'fine')
    const list = [
      good,
      { role: 'user', content: [{ type: 'text', text: 7 }] },
    ] as unknown as Message[]
    expect(() => sealMessages(list)).toThrow(ValidationError)
    expect(() => sealMessages(list)).toThrow('1.content.0.text')
    expect(Object.isFrozen(good)).toBe(false)
    expect(() => sealMessages('not a list' as unknown as Message[])).toThrow(ValidationError)
  })

  test('anything but plain data throws, naming where, and leaves every message as it was', () => {
    class Point {
      x = 1
    }
    const cases: Array<[unknown, string]> = [
      [
        { at: new Point() },
        '1.content.0.input.at: a sealed message holds plain data only, got Point',
      ],
      [{ when: new Date(0) }, '1.content.0.input.when'],
      [{ n: Number.NaN }, '1.content.0.input.n'],
      [
        Object.defineProperty({}, 'live', { enumerable: true, get: () => 1 }),
        '1.content.0.input.live: a sealed message holds plain data only, got a getter',
      ],
    ]
    for (const [input, where] of cases) {
      const first = textMessage('user', 'Go.')
      const call: Message = {
        role: 'assistant',
        content: [
          { type: 'tool_call', id: 't', name: 'n', input: input as Record<string, unknown> },
        ],
      }
      expect(() => sealMessages([first, call])).toThrow(where)
      expect(Object.isFrozen(first)).toBe(false)
      expect(Object.isFrozen(call.content)).toBe(false)
    }
    const getter = Object.defineProperty({ role: 'user' }, 'content', {
      enumerable: true,
      get: () => [{ type: 'text', text: 'x' }],
    }) as Message
    expect(() => sealMessages([getter])).toThrow(
      '0.content: a sealed message holds plain data only, got a getter',
    )
  })

  test('sealing twice is the same as sealing once', () => {
    const list = toolTurn()
    sealMessages(list)
    expect(sealMessages(list)).toBe(list)
    expect(sealMessages([...list, textMessage('user', 'More?')]).every(isSealedMessage)).toBe(true)
  })

  test('property: isMessageArray says of sealed messages and their breakpoint copies what it says of fresh copies', () => {
    fc.assert(
      fc.property(
        fc.array(chatMessage, { maxLength: 6 }),
        fc.array(fc.nat()),
        (messages, marks) => {
          const fresh = structuredClone(messages)
          const sealed = sealMessages(messages as Message[])
          const copies = sealed.map((m, i) =>
            marks.includes(i) ? { ...m, cacheBreakpoint: true } : m,
          )
          const freshCopies = fresh.map((m, i) =>
            marks.includes(i) ? { ...m, cacheBreakpoint: true } : m,
          )
          expect(isMessageArray(sealed)).toBe(isMessageArray(fresh))
          expect(isMessageArray(copies)).toBe(isMessageArray(freshCopies))
          // a breakpoint copy with a bad field is still refused: only the content is trusted
          const bad = sealed.map((m) => ({ ...m, role: 'robot' }))
          expect(isMessageArray(bad)).toBe(sealed.length === 0)
        },
      ),
      { numRuns: 200 },
    )
  })
})
