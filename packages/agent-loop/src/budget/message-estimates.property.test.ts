/**
 * Issue 46: with the loop's default counter, a message's token estimate is kept from run to run
 * while the message is unchanged. Whatever a caller changes in place between runs (a text, a
 * block added or taken off, a tool call's input changed inside, its raw text), each run's count
 * must be the one a fresh count gives. A sealed message (core's `sealMessages`) is trusted without
 * a look at its blocks: its count must be the fresh one too.
 */
import {
  type ContentBlock,
  createTokenCounter,
  estimateRequestTokens,
  getModelInfo,
  type Message,
  sealMessages,
} from '@contextkit/core'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { blockText, chatMessage, contentBlock } from '../../../../test-utils/arbitraries.js'
import { RunTokenCounter } from './budget.js'
import { defaultCounterFor } from './message-estimates.js'

const model = getModelInfo('claude-haiku-4-5')
/** A counter of its own, to hold the kept estimates to a fresh count. */
const fresh = createTokenCounter({ model })

/** A change to a message in place, of what an estimate reads. */
const edit = fc.record({
  kind: fc.constantFrom('text', 'push', 'pop', 'input', 'raw', 'part', 'replace'),
  at: fc.nat(),
  text: blockText,
  block: contentBlock,
})

function change(list: Message[], e: typeof edit extends fc.Arbitrary<infer T> ? T : never): void {
  const message = list[e.at % Math.max(1, list.length)]
  if (message === undefined) return
  const block = message.content[e.at % Math.max(1, message.content.length)]
  if (e.kind === 'push') message.content.push(structuredClone(e.block) as ContentBlock)
  else if (e.kind === 'pop') message.content.pop()
  else if (e.kind === 'replace') message.content = [structuredClone(e.block) as ContentBlock]
  else if (block?.type === 'text' && e.kind === 'text') block.text = e.text
  else if (block?.type === 'thinking' && e.kind === 'text') block.thinking = e.text
  // inside the input object: the same object, another JSON
  else if (block?.type === 'tool_call' && e.kind === 'input') block.input.path = { deep: e.text }
  else if (block?.type === 'tool_call' && e.kind === 'raw')
    block.raw = block.raw === undefined ? e.text : undefined
  else if (block?.type === 'tool_result' && e.kind === 'part') {
    const part = block.content[0]
    if (part?.type === 'text') part.text = e.text
    else block.content.push({ type: 'text', text: e.text })
  }
}

test('property: each run counts every message as a fresh count does, whatever changed between runs', () => {
  fc.assert(
    fc.property(
      fc.array(chatMessage, { maxLength: 8 }),
      fc.array(fc.array(edit, { maxLength: 3 }), { minLength: 1, maxLength: 4 }),
      (start, runs) => {
        const list = structuredClone(start) as Message[]
        for (const edits of runs) {
          for (const e of edits) change(list, e)
          // a run: its own counter over the loop's default one, shared with the runs before
          const counter = new RunTokenCounter(defaultCounterFor(model))
          for (const m of list) {
            expect(counter.message(m)).toBe(estimateRequestTokens({ messages: [m] }, fresh))
          }
        }
      },
    ),
    { numRuns: 300 },
  )
})

test('property: sealed messages, their breakpoint copies and new messages beside them count as fresh ones do', () => {
  fc.assert(
    fc.property(
      fc.array(chatMessage, { maxLength: 8 }),
      fc.array(fc.record({ added: fc.array(chatMessage, { maxLength: 2 }), mark: fc.nat() }), {
        minLength: 1,
        maxLength: 4,
      }),
      (start, runs) => {
        let history = sealMessages(structuredClone(start) as Message[])
        for (const run of runs) {
          history = [...history, ...(structuredClone(run.added) as Message[])]
          const at = run.mark % Math.max(1, history.length)
          const list = history.map((m, i) => (i === at ? { ...m, cacheBreakpoint: true } : m))
          const counter = new RunTokenCounter(defaultCounterFor(model))
          for (const m of list) {
            expect(counter.message(m)).toBe(estimateRequestTokens({ messages: [m] }, fresh))
          }
          history = sealMessages(history)
        }
      },
    ),
    { numRuns: 200 },
  )
})

test('property: a message counted, then changed in place, then sealed is counted anew', () => {
  fc.assert(
    fc.property(
      fc.array(chatMessage, { maxLength: 8 }),
      fc.array(edit, { maxLength: 4 }),
      (start, edits) => {
        const list = structuredClone(start) as Message[]
        const counter = () => new RunTokenCounter(defaultCounterFor(model))
        const before = counter()
        for (const m of list) before.message(m)
        for (const e of edits) change(list, e)
        sealMessages(list)
        // twice: the first look finds the change, the second trusts what is sealed now
        for (let run = 0; run < 2; run++) {
          const after = counter()
          for (const m of list) {
            expect(after.message(m)).toBe(estimateRequestTokens({ messages: [m] }, fresh))
          }
        }
      },
    ),
    { numRuns: 200 },
  )
})

test('the default counter is one object per model, and a caller counter shares nothing', () => {
  expect(defaultCounterFor(model)).toBe(defaultCounterFor(getModelInfo('claude-haiku-4-5')))
  expect(defaultCounterFor(model)).not.toBe(defaultCounterFor(getModelInfo('claude-opus-4-5')))
  let counted = 0
  const count = (t: string) => {
    counted++
    return t.length
  }
  const own = { id: 'own', kind: 'estimate' as const, count }
  const message: Message = { role: 'user', content: [{ type: 'text', text: 'hello' }] }
  new RunTokenCounter(own).message(message)
  new RunTokenCounter(own).message(message)
  // each run asks the caller's counter again: its answers may change from run to run
  expect(counted).toBe(2)
})
