import { memoryTrace, textMessage } from '@contextkit/core'
import { MAX_CACHE_CONTROL_BLOCKS } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, memorySessionStore, type WireBody } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

const CACHE_BREAKPOINTS_DROPPED = AGENT_LOOP_WARNINGS.cacheBreakpointsDropped

// claude-sonnet-4-6 caches from 1,024 tokens; 8,000 characters are 2,000 tokens in testkit's rule
const model = 'claude-sonnet-4-6'
const system = `You are a careful repository assistant. ${'Keep notes short. '.repeat(440)}`
const question = [textMessage('user', 'Read the files.')]

const read = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}: ${'x'.repeat(400)}`,
})

type Block = Record<string, unknown> & { type: string }

/** Every block of a wire request that may carry `cache_control`, in the API's order. */
function wireBlocks(body: WireBody): Array<{ where: string; block: Block }> {
  const out: Array<{ where: string; block: Block }> = []
  for (const t of body.tools ?? []) out.push({ where: 'tools', block: t as unknown as Block })
  for (const b of body.system ?? []) out.push({ where: 'system', block: b as unknown as Block })
  body.messages.forEach((m, i) => {
    if (typeof m.content === 'string') return
    for (const b of m.content) out.push({ where: `message ${i}`, block: b })
  })
  return out
}

const markers = (body: WireBody) => wireBlocks(body).filter((b) => b.block.cache_control)

const lastBlock = (body: WireBody): Block | undefined => {
  const content = body.messages[body.messages.length - 1]?.content
  return Array.isArray(content) ? content[content.length - 1] : undefined
}

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type)

describe("cache: 'auto' on the wire (real SDK, testkit's cache model)", () => {
  test('each call reads everything the previous one wrote, even past the 20-block look-back', async () => {
    const twelve = Array.from({ length: 12 }, (_, i) => ({
      name: 'read_file',
      input: { path: `f${i}.ts` },
    }))
    const { provider, bodies } = await emulated([
      { text: 'Reading all of them.', toolUse: twelve },
      { toolUse: { name: 'read_file', input: { path: 'last.ts' } } },
      'Done.',
    ])
    const trace = memoryTrace()
    const result = await runAgent({
      provider,
      model,
      system,
      messages: question,
      tools: [read],
      trace,
    }).result
    expect(result.stopReason).toBe('end_turn')
    const sent = bodies()
    expect(sent).toHaveLength(3)
    for (const body of sent) {
      expect(markers(body).length).toBeLessThanOrEqual(MAX_CACHE_CONTROL_BLOCKS)
      expect(body.system?.[0]?.cache_control).toEqual({ type: 'ephemeral' })
      expect(lastBlock(body)?.cache_control).toEqual({ type: 'ephemeral' })
    }
    // call 2 marks the user turn again (the last message of call 1): 25 blocks lie between it
    // and the new last block, more than the API looks back
    expect(markers(sent[1]!).map((m) => m.where)).toEqual(['system', 'message 0', 'message 2'])
    const calls = result.usage.calls
    expect(calls.map((c) => c.step)).toEqual([1, 2, 3])
    expect(calls[0]!.cacheRead).toBe(0)
    for (let i = 1; i < calls.length; i++) {
      expect(calls[i]!.cacheRead).toBe(calls[i - 1]!.cacheRead + calls[i - 1]!.cacheWrite)
      expect(calls[i]!.input).toBe(0)
    }
    const placed = trace.byStage(AGENT_TRACE_STAGES.cache).map((e) => e.data.breakpoints)
    expect(placed[2]).toEqual([
      { at: 'system', reason: 'stable-system' },
      { at: 'message', reason: 'last-message', index: 4 },
      { at: 'message', reason: 'previous-call', index: 2 },
    ])
  })

  test('long tool definitions get a breakpoint of their own; short ones do not', async () => {
    const long = defineTool({
      name: 'search',
      description: `Search the repository. ${'Matches are ranked by recency. '.repeat(200)}`,
      input: z.object({ query: z.string() }),
      execute: () => 'no match',
    })
    const { provider, bodies } = await emulated(['ok', 'ok'])
    await runAgent({ provider, model, system, messages: question, tools: [read, long] }).result
    await runAgent({ provider, model, system, messages: question, tools: [read] }).result
    const [withLong, withShort] = bodies()
    expect(withLong!.tools?.map((t) => 'cache_control' in t)).toEqual([false, true])
    expect(markers(withLong!).map((m) => m.where)).toEqual(['tools', 'system', 'message 0'])
    expect(withShort!.tools?.some((t) => 'cache_control' in t)).toBe(false)
    expect(markers(withShort!).map((m) => m.where)).toEqual(['system', 'message 0'])
  })

  test("the messages' own breakpoints count toward four: the loop's come first, one warning", async () => {
    const store = memorySessionStore()
    const history = Array.from({ length: 5 }, (_, i) => ({
      ...textMessage(i % 2 === 0 ? 'user' : 'assistant', `old message ${i}`),
      cacheBreakpoint: true,
    }))
    const step = { toolUse: { name: 'read_file', input: { path: 'a.ts' } } }
    const { provider, bodies } = await emulated([step, 'Done.', step, 'Done.'])
    const first = await runAgent({
      provider,
      model,
      system,
      messages: history,
      tools: [read],
      session: { store, id: 'marked' },
    }).result
    expect(first.error).toBeUndefined()
    expect(first.warnings.map((w) => w.code)).toEqual([CACHE_BREAKPOINTS_DROPPED])
    const run = runAgent({
      provider,
      model,
      system,
      messages: [textMessage('user', 'And now?')],
      tools: [read],
      session: { store, id: 'marked' },
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    // saved history keeps the caller's marks: they are the history's own now
    expect(ofType(events, 'warning').map((e) => e.warning.code)).toEqual([
      CACHE_BREAKPOINTS_DROPPED,
    ])
    for (const body of bodies()) {
      expect(markers(body)).toHaveLength(MAX_CACHE_CONTROL_BLOCKS)
      expect(body.system?.[0]?.cache_control).toBeDefined()
      expect(lastBlock(body)?.cache_control).toBeDefined()
    }
  })

  test("cache: 'off' sends no breakpoint of its own, only the messages' own", async () => {
    const long = defineTool({
      name: 'search',
      description: 'Search. '.repeat(800),
      input: z.object({ query: z.string() }),
      execute: () => 'none',
    })
    const { provider, bodies } = await emulated([
      { toolUse: { name: 'read_file', input: { path: 'a.ts' } } },
      'Done.',
      'ok',
    ])
    const result = await runAgent({
      provider,
      model,
      system,
      messages: question,
      tools: [read, long],
      cache: 'off',
    }).result
    expect(result.usage.cacheRead + result.usage.cacheWrite).toBe(0)
    expect(result.usage.cacheHitRate).toBe(0)
    for (const body of bodies()) expect(markers(body)).toEqual([])
    const own = [{ ...textMessage('user', 'A long document. '.repeat(600)), cacheBreakpoint: true }]
    await runAgent({ provider, model, system, messages: own, cache: 'off' }).result
    expect(markers(bodies()[2]!).map((m) => m.where)).toEqual(['message 0'])
    expect(() =>
      runAgent({ provider, model, messages: question, cache: 'sometimes' as never }),
    ).toThrow(/cache/)
  })

  test('never on a thinking block; replies with thinking are read back from the cache', async () => {
    const { provider, bodies } = await emulated([
      { thinking: 'Which file first?', toolUse: { name: 'read_file', input: { path: 'a.ts' } } },
      { thinking: 'Now the second.', toolUse: { name: 'read_file', input: { path: 'b.ts' } } },
      'Done.',
    ])
    const history = [
      textMessage('user', 'Earlier question'),
      {
        role: 'assistant' as const,
        content: [
          { type: 'thinking' as const, thinking: 'Old thought', signature: 'sig_old' },
          { type: 'text' as const, text: 'Earlier answer' },
        ],
        cacheBreakpoint: true,
      },
      ...question,
    ]
    const result = await runAgent({
      provider,
      model,
      system,
      messages: history,
      tools: [read],
      thinking: { enabled: true, budgetTokens: 1024 },
    }).result
    expect(result.error).toBeUndefined()
    expect(result.steps).toBe(3)
    for (const body of bodies()) {
      const blocks = wireBlocks(body)
      expect(blocks.some((b) => b.block.type === 'thinking')).toBe(true)
      expect(blocks.filter((b) => b.block.type === 'thinking' && b.block.cache_control)).toEqual([])
    }
    expect(markers(bodies()[0]!).map((m) => [m.where, m.block.type])).toEqual([
      ['system', 'text'],
      ['message 1', 'text'],
      ['message 2', 'text'],
    ])
    expect(result.usage.calls[2]!.cacheRead).toBe(
      result.usage.calls[1]!.cacheRead + result.usage.calls[1]!.cacheWrite,
    )
  })

  test('usage events and AgentResult.usage carry the cache hit rate per call and for the run', async () => {
    const { provider } = await emulated([
      { toolUse: { name: 'read_file', input: { path: 'a.ts' } } },
      { toolUse: { name: 'read_file', input: { path: 'b.ts' } } },
      'Done.',
    ])
    const run = runAgent({ provider, model, system, messages: question, tools: [read] })
    const events = ofType(await collect(run.events), 'usage')
    const { usage } = await run.result
    const rate = (u: { input: number; cacheRead: number; cacheWrite: number }) =>
      u.cacheRead / (u.input + u.cacheRead + u.cacheWrite)
    expect(events.map((e) => e.step)).toEqual([1, 2, 3])
    expect(events[0]!.usage.cacheHitRate).toBe(0)
    for (const e of events) {
      expect(e.usage.cacheHitRate).toBeCloseTo(rate(e.usage), 12)
      expect(e.total.cacheHitRate).toBeCloseTo(rate(e.total), 12)
    }
    expect(events[2]!.usage.cacheHitRate).toBeGreaterThan(0.9)
    expect(
      usage.calls.map(({ step, phase, cacheHitRate }) => ({ step, phase, cacheHitRate })),
    ).toEqual(
      events.map((e) => ({ step: e.step, phase: 'agent', cacheHitRate: e.usage.cacheHitRate })),
    )
    expect(usage).toMatchObject({
      input: events[2]!.total.input,
      cacheRead: events[2]!.total.cacheRead,
      cacheWrite: events[2]!.total.cacheWrite,
      cacheHitRate: events[2]!.total.cacheHitRate,
    })
    expect(usage.cacheRead).toBe(usage.calls.reduce((n, c) => n + c.cacheRead, 0))
  })
})
