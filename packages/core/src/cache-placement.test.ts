import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  type CacheMode,
  MAX_CACHE_MARKERS,
  placeCacheBreakpoints,
  stableFirst,
  TOOLS_CACHE_MIN_TOKENS,
} from './cache-placement.js'
import { ValidationError } from './errors.js'
import type { Message } from './message-schemas.js'
import { textMessage } from './messages.js'
import type { Section } from './section-schema.js'

const section = (id: string, cache: Section['cache'], text = id): Section => ({
  id,
  text,
  priority: 1,
  cache,
})

const conversation = (n: number, marked: readonly number[] = []): Message[] =>
  Array.from({ length: n }, (_, i) => ({
    ...textMessage(i % 2 === 0 ? 'user' : 'assistant', `m${i}`),
    ...(marked.includes(i) ? { cacheBreakpoint: true } : {}),
  }))

const marks = (messages: readonly Message[]): number[] =>
  messages.flatMap((m, i) => (m.cacheBreakpoint ? [i] : []))

describe('stableFirst', () => {
  test('stable sections go first, each group in its order; an ordered list is returned as is', () => {
    const mixed = [
      section('resume', 'volatile'),
      section('rules', 'stable'),
      section('hint', 'volatile'),
      section('project', 'stable'),
    ]
    expect(stableFirst(mixed).map((s) => s.id)).toEqual(['rules', 'project', 'resume', 'hint'])
    const ordered = [section('a', 'stable'), section('b', 'volatile')]
    expect(stableFirst(ordered)).toBe(ordered)
    const none: Section[] = []
    expect(stableFirst(none)).toBe(none)
  })
})

describe('placeCacheBreakpoints', () => {
  test("auto: the stable system part, then the last message; the caller's messages are not changed", () => {
    const messages = conversation(3)
    const placed = placeCacheBreakpoints({
      mode: 'auto',
      messages,
      stableSystem: true,
      toolTokens: 0,
    })
    expect(placed.breakpoints).toEqual([
      { at: 'system', reason: 'stable-system' },
      { at: 'message', reason: 'last-message', index: 2 },
    ])
    expect(marks(placed.messages)).toEqual([2])
    expect(marks(messages)).toEqual([])
    expect(placed.messages[0]).toBe(messages[0])
    expect(placed.tools).toBe(false)
  })

  test("auto: the previous call's last message is marked again, and long tools get one", () => {
    const messages = conversation(5)
    const placed = placeCacheBreakpoints({
      mode: 'auto',
      messages,
      stableSystem: true,
      toolTokens: TOOLS_CACHE_MIN_TOKENS,
      previous: messages[2]!,
    })
    expect(placed.breakpoints.map((b) => b.reason)).toEqual([
      'stable-system',
      'last-message',
      'tools',
      'previous-call',
    ])
    expect(placed.tools).toBe(true)
    expect(marks(placed.messages)).toEqual([2, 4])
    const short = placeCacheBreakpoints({
      mode: 'auto',
      messages,
      stableSystem: true,
      toolTokens: TOOLS_CACHE_MIN_TOKENS - 1,
    })
    expect(short.tools).toBe(false)
  })

  test("auto: the caller's own marks come after the loop's first two, newest first; the rest are dropped", () => {
    const messages = conversation(8, [0, 1, 3, 5])
    const placed = placeCacheBreakpoints({
      mode: 'auto',
      messages,
      stableSystem: true,
      toolTokens: 5_000,
      previous: messages[6]!,
    })
    expect(placed.breakpoints).toEqual([
      { at: 'system', reason: 'stable-system' },
      { at: 'message', reason: 'last-message', index: 7 },
      { at: 'message', reason: 'caller', index: 5 },
      { at: 'message', reason: 'caller', index: 3 },
    ])
    expect(placed.dropped).toEqual([1, 0])
    expect(marks(placed.messages)).toEqual([3, 5, 7])
    expect(placed.tools).toBe(false)
    // the dropped marks are taken off copies; the input keeps them
    expect(marks(messages)).toEqual([0, 1, 3, 5])
  })

  test("off: no breakpoint of the loop's own; the messages' own are kept, the newest four", () => {
    const messages = conversation(6, [0, 1, 2, 3, 4])
    const placed = placeCacheBreakpoints({
      mode: 'off',
      messages,
      stableSystem: true,
      toolTokens: 5_000,
      previous: messages[5]!,
    })
    expect(placed.breakpoints.map((b) => [b.reason, b.index])).toEqual([
      ['caller', 4],
      ['caller', 3],
      ['caller', 2],
      ['caller', 1],
    ])
    expect(placed.dropped).toEqual([0])
    expect(placed.tools).toBe(false)
    const plain = conversation(3)
    const none = placeCacheBreakpoints({
      mode: 'off',
      messages: plain,
      stableSystem: true,
      toolTokens: 0,
    })
    expect(none.breakpoints).toEqual([])
    expect(none.messages).toEqual(plain)
  })

  test('property: never more than four, the system first, the last message always, marks where said', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.array(fc.boolean(), { maxLength: 12 }),
        fc.constantFrom<CacheMode>('auto', 'off'),
        fc.boolean(),
        fc.integer({ min: 0, max: 4_000 }),
        fc.integer({ min: -1, max: 11 }),
        (n, flags, mode, stableSystem, toolTokens, previousAt) => {
          const messages = conversation(
            n,
            flags.flatMap((f, i) => (f && i < n ? [i] : [])),
          )
          const before = JSON.stringify(messages)
          const previous = previousAt >= 0 ? messages[previousAt] : undefined
          const placed = placeCacheBreakpoints({
            mode,
            messages,
            stableSystem,
            toolTokens,
            ...(previous ? { previous } : {}),
          })
          expect(JSON.stringify(messages)).toBe(before)
          expect(placed.breakpoints.length).toBeLessThanOrEqual(MAX_CACHE_MARKERS)
          const at = placed.breakpoints.flatMap((b) => (b.index === undefined ? [] : [b.index]))
          expect(marks(placed.messages)).toEqual([...at].sort((a, b) => a - b))
          // a new list; a message whose mark did not change is the caller's very object
          expect(placed.messages).not.toBe(messages)
          placed.messages.forEach((m, i) => {
            if ((m.cacheBreakpoint === true) === (messages[i]?.cacheBreakpoint === true))
              expect(m).toBe(messages[i])
          })
          expect(new Set(at).size).toBe(at.length)
          expect(placed.tools).toBe(placed.breakpoints.some((b) => b.at === 'tools'))
          const own = marks(messages)
          expect([...placed.dropped, ...own.filter((i) => at.includes(i))].sort()).toEqual(
            [...own].sort(),
          )
          if (mode === 'auto') {
            expect(placed.breakpoints[0]?.at === 'system').toBe(stableSystem)
            if (n > 0) expect(at).toContain(n - 1)
          } else {
            expect(placed.breakpoints.every((b) => b.reason === 'caller')).toBe(true)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test("reserved: slots taken elsewhere (a caller's system or tool markers) come first; never more than four in all", () => {
    const messages = conversation(5)
    const previous = messages[2]!
    const full = placeCacheBreakpoints({
      mode: 'auto',
      messages,
      stableSystem: true,
      toolTokens: TOOLS_CACHE_MIN_TOKENS,
      previous,
    })
    expect(full.breakpoints.map((b) => b.reason)).toEqual([
      'stable-system',
      'last-message',
      'tools',
      'previous-call',
    ])
    for (const reserved of [1, 2, 3, 4, 9]) {
      const placed = placeCacheBreakpoints({
        mode: 'auto',
        messages,
        stableSystem: true,
        toolTokens: TOOLS_CACHE_MIN_TOKENS,
        previous,
        reserved,
      })
      // the same precedence, cut to the slots left
      expect(placed.breakpoints).toEqual(full.breakpoints.slice(0, Math.max(0, 4 - reserved)))
    }
    expect(() =>
      placeCacheBreakpoints({
        mode: 'auto',
        messages,
        stableSystem: true,
        toolTokens: 0,
        reserved: -1,
      }),
    ).toThrow(ValidationError)
    expect(() =>
      placeCacheBreakpoints({
        mode: 'auto',
        messages,
        stableSystem: true,
        toolTokens: 0,
        reserved: 1.5,
      }),
    ).toThrow(ValidationError)
  })
})
