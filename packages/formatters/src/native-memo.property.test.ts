/**
 * Issue 46: `NativeFormatter.buildMessages` renders each message once and shares the rendering
 * while the message is unchanged, and with a `RequestMemo` resumes from the part of the previous
 * request that the next one begins with. Whatever happens to the messages between requests, a
 * request must equal one built from fresh copies of the same messages, and building it must not
 * change an earlier request.
 */

import type { Message, Section } from '@contextkit/core'
import { textMessage } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { blockText, chatMessage, contentBlock } from '../../../test-utils/arbitraries.js'
import { NativeFormatter } from './native-formatter.js'
import { type RequestMemo, requestMemo } from './request-memo.js'
import type { BuildOptions, FormattedRequest } from './types.js'

const PREFIX: Message[] = [textMessage('user', 'Context.'), textMessage('assistant', 'Noted.')]
const SECTIONS: Section[] = [{ id: 'hint', text: 'A hint.', priority: 1, cache: 'volatile' }]
const SYSTEM: Section[] = [{ id: 'id', text: 'You are terse.', priority: 1, cache: 'stable' }]
const everyThird = (_m: Message, i: number) => i % 3 === 0

/** Build options a loop or a caller might pass, the same objects from call to call. */
const buildOptions: fc.Arbitrary<BuildOptions> = fc
  .tuple(
    fc.record(
      {
        system: fc.constant(SYSTEM),
        prefill: blockText,
        promptCaching: fc.boolean(),
        cacheTtl: fc.constantFrom('5m' as const, '1h' as const),
        userSections: fc.constant(SECTIONS),
        contextPrefix: fc.constantFrom('Earlier: nothing.', PREFIX),
        cacheContextPrefix: fc.boolean(),
        userName: fc.constantFrom('Alice', 'Bob'),
      },
      { requiredKeys: [] },
    ),
    // a caller's own marker rule (nothing is resumed with one): now and then
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(everyThird) },
    ),
  )
  .map(([options, hasCacheMarker]) => (hasCacheMarker ? { ...options, hasCacheMarker } : options))

/** A fresh formatter per request (as `formatterFor` makes one), in each participant mode. */
const formatter = fc.constantFrom(
  () => new NativeFormatter(),
  () => new NativeFormatter({ participantMode: 'multiuser' }),
  () => new NativeFormatter({ participantMode: 'multiuser', nameFormat: '<{name}> ' }),
)

/** A change to the list itself: the messages in it are never changed (what a memo allows). */
const listEdit = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), message: chatMessage }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), message: chatMessage }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('repeat' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('mark' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('invalid' as const), at: fc.nat() }),
)

/** A change to a message in place (what a memo forbids while it is in use). */
const inPlaceEdit = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), at: fc.nat(), text: blockText }),
  fc.record({ kind: fc.constant('push' as const), at: fc.nat(), block: contentBlock }),
  fc.record({ kind: fc.constant('pop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('role' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('result' as const), at: fc.nat(), text: blockText }),
  fc.record({ kind: fc.constant('input' as const), at: fc.nat(), text: blockText }),
  fc.record({ kind: fc.constant('speaker' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('breakpoint' as const), at: fc.nat() }),
)

type ListEdit = typeof listEdit extends fc.Arbitrary<infer T> ? T : never
type InPlaceEdit = typeof inPlaceEdit extends fc.Arbitrary<infer T> ? T : never

/**
 * Apply a list edit: the same message objects but the new one, in a new list or (`inPlace`) in
 * `list` itself.
 */
function editList(list: Message[], edit: ListEdit, inPlace = false): Message[] {
  const out = inPlace ? list : [...list]
  const at = list.length === 0 ? 0 : ('at' in edit ? edit.at : 0) % list.length
  const target = out[at]
  if (edit.kind === 'append') out.push(structuredClone(edit.message))
  else if (target === undefined) return out
  else if (edit.kind === 'replace') out[at] = structuredClone(edit.message)
  else if (edit.kind === 'remove') out.splice(at, 1)
  else if (edit.kind === 'repeat') out.push(target)
  // a message the checks refuse: every request must say so, however much it remembers
  else if (edit.kind === 'invalid') out[at] = { role: 'robot', content: [] } as unknown as Message
  // a loop's copy that only sets the breakpoint: a new object around the same content array
  else out[at] = { ...target, cacheBreakpoint: target.cacheBreakpoint !== true }
  return out
}

/** Apply an in-place edit to a message of `list`. */
function editInPlace(list: Message[], edit: InPlaceEdit): void {
  const message = list[edit.at % Math.max(1, list.length)]
  if (message === undefined) return
  const block = message.content[edit.at % Math.max(1, message.content.length)]
  switch (edit.kind) {
    case 'text':
      if (block?.type === 'text') block.text = edit.text
      else if (block?.type === 'thinking') block.thinking = edit.text
      break
    case 'push':
      message.content.push(structuredClone(edit.block))
      break
    case 'pop':
      message.content.pop()
      break
    case 'role':
      message.role = message.role === 'user' ? 'assistant' : 'user'
      break
    case 'result':
      if (block?.type === 'tool_result') {
        block.isError = !block.isError
        const part = block.content[0]
        if (part?.type === 'text') part.text = edit.text
      }
      break
    case 'input':
      // the rendering sends the caller's input object itself: a change inside it shows as is
      if (block?.type === 'tool_call') block.input.path = edit.text
      break
    case 'speaker':
      if (message.participant === undefined) message.participant = 'Alice'
      else delete message.participant
      break
    case 'breakpoint':
      message.cacheBreakpoint = message.cacheBreakpoint !== true
      break
  }
}

/** The request, or the error it throws (its class and message). */
function attempt(build: () => FormattedRequest): FormattedRequest | { error: string } {
  try {
    return build()
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` }
  }
}

/**
 * A copy of a request as JSON, with each tool call's `input` left out: the request sends the
 * caller's own input object (as it always has), so a caller's change to it shows in every request.
 */
function ownParts(request: unknown): unknown {
  return JSON.parse(JSON.stringify(request, (key, value) => (key === 'input' ? undefined : value)))
}

/**
 * Build with `memo` (or none) and from fresh copies; expect the same request, and `earlier`
 * unchanged. Returns the request built and a copy of it, for the next check.
 */
function buildAndCompare(
  make: () => NativeFormatter,
  list: Message[],
  options: BuildOptions,
  memo: RequestMemo | undefined,
  earlier: { request: unknown; copy: unknown } | undefined,
) {
  const built = attempt(() => make().buildMessages(list, options, memo))
  const fresh = attempt(() => make().buildMessages(structuredClone(list), options))
  expect(built).toStrictEqual(fresh)
  if (earlier) expect(ownParts(earlier.request)).toStrictEqual(earlier.copy)
  return { request: built, copy: ownParts(built) }
}

describe('NativeFormatter: remembered renderings', () => {
  test('property: a request equals one of fresh copies, whatever changed in place before it', () => {
    fc.assert(
      fc.property(
        fc.array(chatMessage, { maxLength: 8 }),
        fc.array(
          fc.record({
            formatter,
            options: buildOptions,
            replace: fc.array(listEdit, { maxLength: 3 }),
            inPlace: fc.array(inPlaceEdit, { maxLength: 3 }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        (start, calls) => {
          let list: Message[] = structuredClone(start)
          let earlier: { request: unknown; copy: unknown } | undefined
          for (const call of calls) {
            for (const edit of call.replace) list = editList(list, edit)
            for (const edit of call.inPlace) editInPlace(list, edit)
            earlier = buildAndCompare(call.formatter, list, call.options, undefined, earlier)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test('property: with a request memo per run, each call equals a fresh build of its messages', () => {
    // a run's calls mostly share their options (then a call resumes), sometimes not
    const call = fc.record({
      edits: fc.array(listEdit, { maxLength: 3 }),
      // the caller's list may be changed in place between requests (its messages may not)
      sameList: fc.boolean(),
      other: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.record({ formatter, options: buildOptions }) },
      ),
    })
    fc.assert(
      fc.property(
        fc.array(chatMessage, { maxLength: 8 }),
        fc.array(
          fc.record({
            // between runs a caller may change its messages in place; within one, it may not
            inPlace: fc.array(inPlaceEdit, { maxLength: 3 }),
            formatter,
            options: buildOptions,
            calls: fc.array(call, { minLength: 1, maxLength: 5 }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        (start, runs) => {
          let list: Message[] = structuredClone(start)
          let earlier: { request: unknown; copy: unknown } | undefined
          for (const run of runs) {
            for (const edit of run.inPlace) editInPlace(list, edit)
            const memo = requestMemo()
            for (const c of run.calls) {
              for (const edit of c.edits) list = editList(list, edit, c.sameList)
              const { formatter: make, options } = c.other ?? run
              earlier = buildAndCompare(make, list, options, memo, earlier)
            }
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test('with a memo, a message the previous request began with is not looked at again', () => {
    let reads = 0
    /** A message that counts how often its content is read. */
    const counted = (role: 'user' | 'assistant', text: string): Message => {
      const content = [{ type: 'text' as const, text }]
      return Object.defineProperty({ role }, 'content', {
        enumerable: true,
        get: () => {
          reads++
          return content
        },
      }) as Message
    }
    const history = Array.from({ length: 10 }, (_, i) =>
      counted(i % 2 === 0 ? 'user' : 'assistant', `message ${i}`),
    )
    const memo = requestMemo()
    const readsPerCall: number[] = []
    let list = [...history, textMessage('user', 'Question?')]
    for (let step = 0; step < 3; step++) {
      reads = 0
      new NativeFormatter().buildMessages(list, { userSections: SECTIONS }, memo)
      readsPerCall.push(reads)
      list = [
        ...list,
        textMessage('assistant', `step ${step}`),
        textMessage('user', `more ${step}`),
      ]
    }
    // the first call checks and renders each; the next ones begin where the previous began
    expect(readsPerCall[0]).toBeGreaterThanOrEqual(history.length)
    expect(readsPerCall.slice(1)).toEqual([0, 0])
  })

  test('a run that grows its history resumes where the previous request began, and says the same', () => {
    const memo = requestMemo()
    const history = Array.from({ length: 40 }, (_, i) =>
      textMessage(i % 2 === 0 ? 'user' : 'assistant', `message ${i}`),
    )
    let list = [...history, textMessage('user', 'Question?')]
    const options: BuildOptions = { system: SYSTEM, userSections: SECTIONS }
    for (let step = 0; step < 4; step++) {
      const last = list[list.length - 1] as Message
      // as the loop sends it: the last message copied with a breakpoint of its own
      const sent = [...list.slice(0, -1), { ...last, cacheBreakpoint: true }]
      const request = new NativeFormatter().buildMessages(sent, options, memo)
      expect(request).toStrictEqual(
        new NativeFormatter().buildMessages(structuredClone(sent), options),
      )
      list = [
        ...list,
        textMessage('assistant', `step ${step}`),
        textMessage('user', `more ${step}`),
      ]
    }
  })

  test("a run's second request resumes from the first one's checkpoint, taken before the message the loop marked", () => {
    // two user messages in a row are merged into a message the request owns; a checkpoint holds a
    // frozen copy of it, so a request resumed from one sends that frozen copy
    const history = [textMessage('user', 'First.'), textMessage('user', 'Second.')]
    const question = textMessage('user', 'Question?')
    const read = textMessage('assistant', 'Read.')
    const memo = requestMemo()
    // as the loop sends them: the last message a copy marked for the cache, made per request
    const first = new NativeFormatter().buildMessages(
      [...history, read, { ...question, cacheBreakpoint: true }],
      {},
      memo,
    )
    const sent = [
      ...history,
      read,
      { ...question, cacheBreakpoint: true },
      textMessage('assistant', 'Answer.'),
      { ...textMessage('user', 'More?'), cacheBreakpoint: true },
    ]
    const second = new NativeFormatter().buildMessages(sent, {}, memo)
    expect(Object.isFrozen(first.messages[0])).toBe(false)
    expect(Object.isFrozen(second.messages[0])).toBe(true)
    expect(second).toStrictEqual(new NativeFormatter().buildMessages(structuredClone(sent)))
  })

  test('shared messages are frozen: a request cannot change what the next one sends', () => {
    const messages = [textMessage('user', 'Hi'), textMessage('assistant', 'Hello')]
    const first = new NativeFormatter().buildMessages(messages)
    const shared = first.messages[0]
    expect(Object.isFrozen(shared)).toBe(true)
    expect(() => {
      ;(shared?.content[0] as { text: string }).text = 'changed'
    }).toThrow(TypeError)
    const second = new NativeFormatter().buildMessages(messages)
    expect(second.messages[0]).toStrictEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Hi' }],
    })
  })

  test('a memo not made by requestMemo() is refused with a typed error', () => {
    const bogus = { requestMemo: true } as RequestMemo
    expect(() =>
      new NativeFormatter().buildMessages([textMessage('user', 'Hi')], {}, bogus),
    ).toThrow(/memo must be a requestMemo\(\)/)
  })
})
