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

describe('checkpoints shared from memo to memo', () => {
  test('property: each run of a sealed history equals a fresh build, call after call', () => {
    fc.assert(
      fc.property(
        fc.array(chatMessage, { minLength: 1, maxLength: 8 }),
        fc.array(
          fc.record({
            formatter,
            options,
            // messages the run adds on each call, sealed or not, and history kept from the last run
            calls: fc.array(fc.array(chatMessage, { maxLength: 2 }), {
              minLength: 1,
              maxLength: 3,
            }),
            sealAdded: fc.boolean(),
            keep: fc.boolean(),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (start, runs) => {
          let history: Message[] = sealMessages(structuredClone(start) as Message[])
          for (const run of runs) {
            const memo = requestMemo()
            let extra: Message[] = []
            for (const added of run.calls) {
              extra = [...extra, ...(structuredClone(added) as Message[])]
              const list = sent(history, extra)
              const built = attempt(() => run.formatter().buildMessages(list, run.options, memo))
              const fresh = attempt(() =>
                run.formatter().buildMessages(structuredClone(list), run.options),
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

  test('an unsealed history, or a context prefix list, is put together again on every run', () => {
    const [, unsealed] = twoRuns(history())
    expect(Object.isFrozen(unsealed?.messages[0])).toBe(false)
    const prefix = [textMessage('assistant', 'Context.')]
    const [, withList] = twoRuns(sealMessages(history()), { contextPrefix: prefix })
    expect(Object.isFrozen(withList?.messages[1])).toBe(false)
  })
})
