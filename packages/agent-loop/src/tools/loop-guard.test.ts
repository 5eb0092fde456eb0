import { textMessage } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { emulated, type WireBody } from '../test-support.js'
import { defineTool } from './define-tool.js'
import { canonicalJson, LoopGuard } from './loop-guard.js'

let runs = 0
const search = defineTool({
  name: 'search',
  description: 'Search the docs',
  input: z.object({ query: z.string(), limit: z.number().optional() }),
  execute: ({ query }) => {
    runs++
    return `no results for ${query}`
  },
})

const call = (input: Record<string, unknown>) => ({
  type: 'tool_call' as const,
  id: `c${Math.random()}`,
  name: 'search',
  input,
})

describe('canonicalJson', () => {
  test('property: key order never matters, values do', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse())
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj))
        expect(JSON.parse(canonicalJson(obj))).toEqual(JSON.parse(JSON.stringify(obj)))
      }),
    )
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}')
  })
})

describe('LoopGuard', () => {
  test('trips on the K-th identical call in a row, across replies; a different call resets', () => {
    const guard = new LoopGuard()
    expect(guard.check([call({ query: 'x' })]).refused.size).toBe(0)
    expect(guard.check([call({ query: 'x' })]).refused.size).toBe(0)
    const third = guard.check([call({ query: 'x' })])
    expect([...third.refused.keys()]).toEqual([0])
    expect(third.stop).toBe(true)
    const fresh = new LoopGuard({ maxRepeats: 2 })
    fresh.check([call({ query: 'x' }), call({ query: 'y' })])
    expect(fresh.check([call({ query: 'x' })]).stop).toBe(false)
    // same input in another key order is the same call
    expect(fresh.check([call({ limit: 1, query: 'z' }), call({ query: 'z', limit: 1 })]).stop).toBe(
      true,
    )
  })
})

describe('the loop guard in a run', () => {
  test('by default the same call 3 times in a row stops the run: loop_detected, the 3rd not run', async () => {
    runs = 0
    const { provider, bodies } = await emulated(() => ({
      toolUse: { name: 'search', input: { query: 'same' } },
    }))
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'find it')],
      tools: [search],
    }).result
    expect(result.stopReason).toBe('loop_detected')
    expect(bodies()).toHaveLength(3)
    expect(runs).toBe(2)
    const last = result.messages.at(-1)?.content[0]
    expect(last).toMatchObject({ type: 'tool_result', isError: true })
    expect(last?.type === 'tool_result' && last.content[0]).toMatchObject({
      text: 'Not run: search was called with this same input 3 times in a row.',
    })
  })

  test("action 'nudge' tells the model instead, and stops if it repeats once more", async () => {
    runs = 0
    let i = 0
    const { provider, bodies } = await emulated(() =>
      ++i <= 3
        ? { toolUse: { name: 'search', input: { query: 'same' } } }
        : 'I will stop searching.',
    )
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'find it')],
      tools: [search],
      loopGuard: { action: 'nudge', nudge: 'Stop repeating yourself.' },
    }).result
    expect(result.stopReason).toBe('end_turn')
    expect(runs).toBe(2)
    const fourth = bodies()[3] as WireBody
    const content = fourth.messages.at(-1)?.content
    expect(Array.isArray(content) && content.at(-1)).toMatchObject({
      type: 'text',
      text: 'Stop repeating yourself.',
    })

    let j = 0
    const again = await emulated(() => ({
      toolUse: { name: 'search', input: { query: `q${j++ < 9 ? 0 : j}` } },
    }))
    const stopped = await runAgent({
      provider: again.provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'find it')],
      tools: [search],
      loopGuard: { action: 'nudge' },
    }).result
    expect(stopped.stopReason).toBe('loop_detected')
    expect(again.bodies()).toHaveLength(4)
  })

  test('loopGuard: false turns it off', async () => {
    const { provider } = await emulated(() => ({
      toolUse: { name: 'search', input: { query: 'same' } },
    }))
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'find it')],
      tools: [search],
      loopGuard: false,
      stopWhen: (s) => s.steps >= 5,
    }).result
    expect(result.stopReason).toBe('stop_condition')
    expect(result.steps).toBe(5)
  })
})
