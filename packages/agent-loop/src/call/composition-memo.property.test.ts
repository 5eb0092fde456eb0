import { createRunInfo, defaultTokenCounter, type Message } from '@contextkit/core'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { RunTokenCounter } from '../budget/budget.js'
import { summaryMessage } from '../session/summary-message.js'
import { type CompositionInput, compositionOf } from './composition-trace.js'

// compositionOf takes a request's messages as the turn's own list and this run's messages after
// it, and counts the turn's list once per run (issue 46: a call's cost must not grow with the
// history). Whatever the split, the record must be the one a fresh count of the whole list gives.

const text = fc.string({ maxLength: 40 })
const toolCall = fc.record({
  type: fc.constant('tool_call' as const),
  id: fc.constantFrom('c1', 'c2', 'c3'),
  name: fc.constantFrom('read', 'write'),
  input: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 10 }), {
    maxKeys: 2,
  }),
})
const toolResult = fc.record({
  type: fc.constant('tool_result' as const),
  toolCallId: fc.constantFrom('c1', 'c2', 'c3'),
  content: fc.array(
    text.map((t) => ({ type: 'text' as const, text: t })),
    { maxLength: 2 },
  ),
  isError: fc.boolean(),
})
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({
    role: fc.constant('user' as const),
    content: fc.array(
      text.map((t) => ({ type: 'text' as const, text: t })),
      {
        minLength: 1,
        maxLength: 2,
      },
    ),
  }),
  fc.record({
    role: fc.constant('user' as const),
    content: fc.array(toolResult, { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: fc.array(
      fc.oneof(
        text.map((t) => ({ type: 'text' as const, text: t })),
        toolCall,
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
)

function input(messages: CompositionInput['messages']): CompositionInput {
  return {
    step: 2,
    phase: 'agent',
    model: 'claude-haiku-4-5',
    window: 200_000,
    maxTokens: 1000,
    counter: new RunTokenCounter(defaultTokenCounter),
    fitted: {
      system: [{ id: 'identity', text: 'You are terse.', priority: 1, cache: 'stable' }],
      userSections: [],
      omitted: [],
      budget: 100,
      tokens: 5,
      fits: true,
    },
    tools: [],
    messages,
    prefill: undefined,
    run: createRunInfo(),
  }
}

test('compositionOf of the turn and the run messages equals a fresh count of the whole list', () => {
  fc.assert(
    fc.property(
      fc.boolean(),
      fc.array(message, { maxLength: 12 }),
      fc.nat(),
      (summary, list, at) => {
        const all = summary ? [summaryMessage('what happened'), ...list] : list
        const cut = all.length === 0 ? 0 : at % (all.length + 1)
        const split = input({ base: all.slice(0, cut), extra: all.slice(cut) })
        // the same split counted on a later call of the run (the memo already warm) too
        const warm = compositionOf(split)
        const again = compositionOf({ ...split, run: createRunInfo() })
        const fresh = compositionOf(input([...all]))
        expect(warm).toEqual(fresh)
        expect(again).toEqual(fresh)
      },
    ),
  )
})

test('messages.same is the count of leading messages the previous call sent, whatever the split', () => {
  /** One call: the turn's list (kept, copied or changed) and the run's messages after it. */
  const call = fc.record({
    base: fc.constantFrom('same' as const, 'copy' as const, 'changed' as const),
    extra: fc.array(message, { maxLength: 4 }),
    keep: fc.nat(),
  })
  fc.assert(
    fc.property(
      fc.array(message, { maxLength: 8 }),
      fc.array(call, { maxLength: 5 }),
      (start, calls) => {
        const run = createRunInfo()
        let base: Message[] = start
        let extra: Message[] = []
        let previous: Message[] | undefined
        for (const c of calls) {
          if (c.base === 'copy') base = [...base]
          if (c.base === 'changed') base = [...base.slice(0, -1), ...c.extra.slice(0, 1)]
          // the run's messages grow (some kept, some new), in a list the loop appends to
          extra = [...extra.slice(0, c.keep % (extra.length + 1)), ...c.extra]
          const record = compositionOf({ ...input({ base, extra }), run })
          const all = [...base, ...extra]
          let same = 0
          while (
            previous &&
            same < Math.min(previous.length, all.length) &&
            previous[same] === all[same]
          )
            same++
          expect(record.messages).toEqual({ count: all.length, same: previous ? same : null })
          previous = all
          extra.push(...c.extra.slice(0, 1)) // changed in place after the call, as the loop's list is
        }
      },
    ),
  )
})
