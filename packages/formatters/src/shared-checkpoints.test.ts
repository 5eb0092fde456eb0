/**
 * Issue 46: a memo's first request resumes from the checkpoint an earlier memo left after the same
 * sealed messages (an agent's next run resends the history of the last). Whatever the runs send,
 * each request must equal one built from fresh copies with no memo at all; and the checkpoint is
 * shared only when nothing in it can have changed since (sealed messages, no context prefix list).
 */
import { type Message, type Section, sealMessages, textMessage } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chatMessage } from '../../../test-utils/arbitraries.js'
import { NativeFormatter } from './native-formatter.js'
import { requestMemo } from './request-memo.js'
import type { BuildOptions, FormattedRequest } from './types.js'

const SECTIONS: Section[] = [{ id: 'hint', text: 'A hint.', priority: 1, cache: 'volatile' }]

const options: fc.Arbitrary<BuildOptions> = fc.record(
  {
    promptCaching: fc.boolean(),
    userSections: fc.constant(SECTIONS),
    contextPrefix: fc.constantFrom('Earlier: nothing.', [textMessage('user', 'Context.')]),
    cacheContextPrefix: fc.boolean(),
    userName: fc.constantFrom('Alice', 'Bob'),
  },
  { requiredKeys: [] },
)

const formatter = fc.constantFrom(
  () => new NativeFormatter(),
  () => new NativeFormatter({ participantMode: 'multiuser' }),
)

/** The request, or the error it throws (its class and message). */
function attempt(build: () => FormattedRequest): FormattedRequest | { error: string } {
  try {
    return build()
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` }
  }
}

/** A run's list as an agent loop sends it: the history, the run's messages, the last one marked. */
function sent(history: readonly Message[], extra: readonly Message[]): Message[] {
  const list = [...history, ...extra]
  const last = list[list.length - 1]
  if (last !== undefined) list[list.length - 1] = { ...last, cacheBreakpoint: true }
  return list
}

/** Change message `at` of `history` (when it is not sealed) in place: `how` says what. */
function changeInPlace(history: Message[], at: number, how: string): void {
  const m = history[at % Math.max(1, history.length)]
  if (m === undefined || Object.isFrozen(m)) return
  if (how === 'participant') m.participant = m.participant === 'Bob' ? 'Alice' : 'Bob'
  else if (how === 'breakpoint') m.cacheBreakpoint = !m.cacheBreakpoint
  else if (how === 'role') m.role = m.role === 'user' ? 'assistant' : 'user'
  else {
    const block = m.content.find((b) => b.type === (how === 'text' ? 'text' : 'tool_call'))
    if (block?.type === 'text') block.text = `${block.text} changed`
    if (block?.type === 'tool_call') block.input.changed = true
    if (block === undefined) m.content.push({ type: 'text', text: 'added' })
  }
}

describe('checkpoints shared from memo to memo', () => {
  test('property: each run of a history, sealed or not, equals a fresh build, call after call', () => {
    fc.assert(
      fc.property(
        fc.array(chatMessage, { minLength: 1, maxLength: 8 }),
        fc.array(
          fc.record({
            // messages the run adds on each call, sealed or not, and history kept from the last run
            calls: fc.array(fc.array(chatMessage, { maxLength: 2 }), {
              minLength: 1,
              maxLength: 3,
            }),
            sealAdded: fc.boolean(),
            keep: fc.boolean(),
            // an unsealed message of the history changed in place before the run
            change: fc.option(
              fc.record({
                at: fc.nat(),
                how: fc.constantFrom('text', 'participant', 'breakpoint', 'role', 'input'),
              }),
            ),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.boolean(),
        // one formatter and one set of options for all runs (an agent's), so checkpoints are shared
        formatter,
        options,
        (start, runs, sealStart, makeFormatter, buildOptions) => {
          const copies = structuredClone(start) as Message[]
          let history: Message[] = sealStart ? sealMessages(copies) : copies
          for (const run of runs) {
            if (run.change) changeInPlace(history, run.change.at, run.change.how)
            const memo = requestMemo()
            let extra: Message[] = []
            for (const added of run.calls) {
              extra = [...extra, ...(structuredClone(added) as Message[])]
              const list = sent(history, extra)
              const built = attempt(() => makeFormatter().buildMessages(list, buildOptions, memo))
              const fresh = attempt(() =>
                makeFormatter().buildMessages(structuredClone(list), buildOptions),
              )
              expect(built).toStrictEqual(fresh)
            }
            if (run.keep) history = [...history, ...(run.sealAdded ? sealMessages(extra) : extra)]
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test('a message rendered, then changed in place, then sealed is rendered anew', () => {
    const messages = [textMessage('user', 'Hi'), textMessage('assistant', 'Hello')]
    new NativeFormatter().buildMessages(messages)
    const first = messages[0]?.content[0]
    if (first?.type === 'text') first.text = 'Changed'
    sealMessages(messages)
    for (let run = 0; run < 2; run++) {
      const request = new NativeFormatter().buildMessages(messages, {}, requestMemo())
      expect(request.messages[0]?.content).toStrictEqual([{ type: 'text', text: 'Changed' }])
    }
  })

  // two user messages in a row are merged into a message the request owns; a checkpoint holds a
  // frozen copy of it, so a request resumed from one sends that frozen copy
  const history = () => [
    textMessage('user', 'First.'),
    textMessage('user', 'Second.'),
    textMessage('assistant', 'Both read.'),
  ]
  const twoRuns = (messages: Message[], buildOptions: BuildOptions = {}) =>
    [1, 2].map((run) => {
      const list = sent(messages, [textMessage('user', `Question ${run}?`)])
      return new NativeFormatter().buildMessages(list, buildOptions, requestMemo())
    })

  test("a sealed history: the next run's first request resumes from the last run's checkpoint", () => {
    const [first, second] = twoRuns(sealMessages(history()))
    expect(Object.isFrozen(first?.messages[0])).toBe(false)
    expect(Object.isFrozen(second?.messages[0])).toBe(true)
    expect(second?.messages[0]).toStrictEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'First.' },
        { type: 'text', text: '\n\nSecond.' },
      ],
    })
  })

  test('an unsealed history resumes while its messages hold what they held; changed, it is put together again', () => {
    const messages = history()
    const [, unchanged] = twoRuns(messages)
    expect(Object.isFrozen(unchanged?.messages[0])).toBe(true)
    for (const change of [
      (m: Message) => {
        const block = m.content[0]
        if (block?.type === 'text') block.text = 'Changed.'
      },
      (m: Message) => {
        m.participant = 'Carol'
      },
      (m: Message) => {
        m.cacheBreakpoint = true
      },
    ]) {
      const list = history()
      twoRuns(list)
      change(list[1] as Message)
      const again = attempt(() =>
        new NativeFormatter().buildMessages(
          sent(list, [textMessage('user', 'Question 3?')]),
          {},
          requestMemo(),
        ),
      )
      const fresh = attempt(() =>
        new NativeFormatter().buildMessages(
          sent(structuredClone(list), [textMessage('user', 'Question 3?')]),
        ),
      )
      expect(again).toStrictEqual(fresh)
      if ('messages' in again) expect(Object.isFrozen(again.messages[0])).toBe(false)
    }
  })

  test('a context prefix list, or an unsealed user message with multiuser labels, is put together again', () => {
    const prefix = [textMessage('assistant', 'Context.')]
    const [, withList] = twoRuns(sealMessages(history()), { contextPrefix: prefix })
    expect(Object.isFrozen(withList?.messages[1])).toBe(false)
    const multiuser = [1, 2].map((run) =>
      new NativeFormatter({ participantMode: 'multiuser' }).buildMessages(
        sent(history(), [textMessage('user', `Question ${run}?`)]),
        {},
        requestMemo(),
      ),
    )
    expect(Object.isFrozen(multiuser[1]?.messages[0])).toBe(false)
  })
})
