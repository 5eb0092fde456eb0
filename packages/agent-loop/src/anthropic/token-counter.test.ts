import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Anthropic from '@anthropic-ai/sdk'
import {
  createTokenCounter,
  getModelInfo,
  memoryTrace,
  type Section,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { isAsyncTokenCounter } from '../provider/token-count.js'
import { runAgent } from '../run/run-agent.js'
import { emulated, wireText } from '../test-support.js'
import { anthropicTokenCounter } from './token-counter.js'

const haiku = getModelInfo('claude-haiku-4-5')
const estimate = createTokenCounter({ model: haiku })
// digits: the estimate counts ~1.5× what the emulator's token rule (⌈length ÷ 4⌉) does
const A = '1234567890'.repeat(40)
const B = '0987654321'.repeat(40)

async function counted(margin?: number) {
  const setup = await emulated(() => 'ok')
  const counter = anthropicTokenCounter({
    client: setup.client,
    model: 'claude-haiku-4-5',
    ...(margin === undefined ? {} : { margin }),
  })
  const countRequests = () =>
    setup.emulator.requests.filter((r) => r.path === '/v1/messages/count_tokens').length
  return { ...setup, counter, countRequests }
}

/** A port nobody listens on. */
function closedPort(): Promise<string> {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(`http://127.0.0.1:${port}`))
    })
  })
}

describe('anthropicTokenCounter', () => {
  test('countExact: messages.countTokens minus the message overhead, cached by digest', async () => {
    const { counter, countRequests } = await counted()
    expect(counter.kind).toBe('exact')
    expect(isAsyncTokenCounter(counter)).toBe(true)
    expect(counter.count(A)).toBe(estimate.count(A)) // nothing fetched yet: the estimate
    expect(await counter.countExact(A)).toEqual({ tokens: 100, exact: true })
    expect(countRequests()).toBe(2) // the overhead once, then the text
    expect(counter.count(A)).toBe(100)
    expect(await counter.countExact(A)).toEqual({ tokens: 100, exact: true })
    expect(await counter.countExact('x'.repeat(9))).toEqual({ tokens: 3, exact: true })
    expect(countRequests()).toBe(3)
    expect(counter.cached).toBe(2)
    // empty and blank texts are never sent (the API refuses them)
    expect(counter.count('')).toBe(0)
    expect((await counter.countExact('   ')).exact).toBe(true)
    expect(countRequests()).toBe(3)
  })

  test('prepare counts exactly only when the estimate lands within the margin of the budget', async () => {
    const { counter, countRequests } = await counted(0.5)
    const far = await counter.prepare({ texts: [A, B], alternatives: [], budget: 10_000 })
    expect(far).toMatchObject({ exact: false, requests: 0, counted: [] })
    expect(countRequests()).toBe(0)
    const near = await counter.prepare({ texts: [A, B], alternatives: ['short'], budget: 210 })
    expect(near.estimate).toBe(estimate.count(A) + estimate.count(B))
    // three texts and the message overhead, once
    expect(near).toMatchObject({ exact: true, tokens: 200, requests: 4, warnings: [] })
    expect(countRequests()).toBe(4)
    // 'short' is 2 tokens either way: only the texts whose count changed are reported
    expect([...near.counted].sort()).toEqual([A, B].sort())
    // everything is cached now: nothing more to fetch
    const again = await counter.prepare({ texts: [A, B], alternatives: ['short'], budget: 210 })
    expect(again).toMatchObject({ exact: true, requests: 0, tokens: 200 })
  })

  test('budget fitting in a run uses the exact counts near the budget', async () => {
    const system: Section[] = [
      { id: 'a', text: A, priority: 2, cache: 'stable' },
      { id: 'b', text: B, priority: 1, cache: 'stable' },
    ]
    expect(estimate.count(A) + estimate.count(B)).toBeGreaterThan(210) // the estimate drops b
    const withExact = await counted(0.5)
    const trace = memoryTrace()
    const result = await runAgent({
      provider: withExact.provider,
      model: haiku,
      system,
      budgetTokens: 210,
      tokenCounter: withExact.counter,
      messages: [textMessage('user', 'Hi')],
      trace,
    }).result
    expect(result.error).toBeUndefined()
    const sent =
      withExact
        .bodies()[0]
        ?.system?.map((b) => b.text)
        .join('\n') ?? ''
    expect(sent).toContain(A)
    expect(sent).toContain(B)
    const pass = trace.events.find((e) => e.stage === AGENT_TRACE_STAGES.tokenCount)
    expect(pass?.data).toMatchObject({ exact: true, tokens: 200, budget: 210, step: 1 })
    const fit = trace.events.find((e) => e.stage === AGENT_TRACE_STAGES.budget)
    expect(fit?.data).toMatchObject({ tokens: 200, kept: ['a', 'b'] })

    // with the default 10 % margin the estimate is too far off the budget to ask: b is dropped
    const estimated = await counted()
    const plain = await runAgent({
      provider: estimated.provider,
      model: haiku,
      system,
      budgetTokens: 210,
      tokenCounter: estimated.counter,
      messages: [textMessage('user', 'Hi')],
    }).result
    expect(plain.error).toBeUndefined()
    expect(estimated.countRequests()).toBe(0)
    const sentPlain =
      estimated
        .bodies()[0]
        ?.system?.map((b) => b.text)
        .join('\n') ?? ''
    expect(sentPlain).toContain(A)
    expect(sentPlain).not.toContain(B)
    expect(wireText(estimated.bodies()[0]?.messages[0])).toBe('Hi')
  })

  test('when the endpoint fails, the estimate is used and the run gets a warning', async () => {
    const { provider, bodies } = await emulated(() => 'ok')
    const down = new Anthropic({ apiKey: 'test', baseURL: await closedPort(), maxRetries: 0 })
    const counter = anthropicTokenCounter({ client: down, model: haiku, margin: 0.5 })
    expect(await counter.countExact(A)).toMatchObject({ exact: false, tokens: estimate.count(A) })
    const result = await runAgent({
      provider,
      model: haiku,
      system: [
        { id: 'a', text: A, priority: 2, cache: 'stable' },
        { id: 'b', text: B, priority: 1, cache: 'stable' },
      ],
      budgetTokens: 210,
      tokenCounter: counter,
      messages: [textMessage('user', 'Hi')],
    }).result
    expect(result.error).toBeUndefined()
    const warning = result.warnings.find((w) => w.code === AGENT_LOOP_WARNINGS.tokenCountFailed)
    expect(warning).toMatchObject({ source: 'token-counter' })
    expect(warning?.message).toContain('connection')
    // the estimate decided: b did not fit
    expect(
      bodies()[0]
        ?.system?.map((b) => b.text)
        .join('\n'),
    ).not.toContain(B)
  })

  test('options are checked', () => {
    expect(() => anthropicTokenCounter({ client: {} as never, model: 'x' })).toThrow(
      ValidationError,
    )
    const client = { messages: { countTokens: () => undefined } } as never
    expect(() => anthropicTokenCounter({ client, model: '' })).toThrow(ValidationError)
    expect(() => anthropicTokenCounter({ client, model: 'm', margin: -1 })).toThrow(ValidationError)
  })
})
