import {
  type ContextMiddleware,
  getModelInfo,
  memoryTrace,
  OMISSION_NOTICE_ID,
  type Section,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { AGENT_EVENT_TYPES, type AgentEvent } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { collect, emulated, wireText } from '../test-support.js'
import { scriptedProvider } from '../testing/scripted-provider.js'
import { defineTool } from '../tools/define-tool.js'
import { runAgent } from './run-agent.js'

const hello = [textMessage('user', 'Hello')]

describe('runAgent options', () => {
  test('invalid options throw a ValidationError at once, naming the path', () => {
    const provider = scriptedProvider(['hi'])
    expect(() =>
      runAgent({ provider, model: 'claude-haiku-4-5', messages: 'hi' as never }),
    ).toThrow(ValidationError)
    expect(() => runAgent({ provider: {} as never, model: 'x', messages: hello })).toThrow(
      /provider/,
    )
    expect(() =>
      runAgent({ provider, model: 'claude-haiku-4-5', messages: hello, toolConcurrency: 0 }),
    ).toThrow(/toolConcurrency/)
    const tool = defineTool({ name: 't', description: '', input: z.object({}), execute: () => 'x' })
    expect(() =>
      runAgent({ provider, model: 'claude-haiku-4-5', messages: hello, tools: [tool, tool] }),
    ).toThrow(/used twice/)
    expect(() =>
      runAgent({
        provider,
        model: 'claude-haiku-4-5',
        messages: hello,
        session: { store: {} as never, id: '../x' },
      }),
    ).toThrow(ValidationError)
  })

  test('a bad message deep in a long history is named with its path; a good history is taken as given', () => {
    const provider = scriptedProvider(['hi'])
    const history = Array.from({ length: 300 }, (_, i) => textMessage('user', `m${i}`))
    const bad = [...history, { role: 'user', content: [{ type: 'text', text: 7 }] }]
    expect(() => runAgent({ provider, model: 'claude-haiku-4-5', messages: bad as never })).toThrow(
      /messages\.300\.content\.0/,
    )
    expect(() =>
      runAgent({ provider, model: 'claude-haiku-4-5', messages: history, nope: 1 } as never),
    ).toThrow(/nope/)
  })

  test('awaiting result alone works; the events can be read afterwards, once (no replay)', async () => {
    const { provider } = await emulated(['Hi there.'])
    const run = runAgent({ provider, model: 'claude-haiku-4-5', messages: hello })
    const result = await run.result
    expect(result.text).toBe('Hi there.')
    const once = await collect(run.events)
    // read events are released: a second reader starts after them
    expect(await collect(run.events)).toEqual([])
    expect(once.map((e) => e.type)).toEqual([
      'run-start',
      'step-start',
      'text-delta',
      'usage',
      'step-end',
      'run-end',
    ])
    expect(once.at(-1)).toEqual({ type: 'run-end', result })
    expect(new Set(once.map((e) => e.type)).size).toBeLessThanOrEqual(AGENT_EVENT_TYPES.length)
  })

  test('system as a string or as sections, workspace and vars reach the middleware', async () => {
    const { provider, bodies } = await emulated(['a', 'b'])
    const seen: unknown[] = []
    const spy: ContextMiddleware = {
      name: 'spy',
      prepare(turn, run) {
        seen.push(run.workspace, turn.vars.project, run.runId)
        return turn
      },
    }
    await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      system: 'You are terse.',
      messages: hello,
      workspace: '/tmp/ws',
      vars: { project: 'demo' },
      middleware: [spy],
      runId: 'run_fixed',
    }).result
    expect(seen).toEqual(['/tmp/ws', 'demo', 'run_fixed'])
    expect(bodies()[0]?.system).toEqual([
      { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
    ])
    const sections: Section[] = [
      { id: 'rules', text: 'Stable rules.', priority: 10, cache: 'stable' },
      { id: 'today', text: 'Today is Monday.', priority: 5, cache: 'volatile' },
    ]
    await runAgent({ provider, model: 'claude-haiku-4-5', system: sections, messages: hello })
      .result
    expect(bodies()[1]?.system?.map((b) => [b.text, Boolean(b.cache_control)])).toEqual([
      ['Stable rules.', true],
      ['Today is Monday.', false],
    ])
  })

  test('budget fitting: a tight budget drops the lowest-priority section and tells the model', async () => {
    const { provider, bodies } = await emulated(['ok'])
    const trace = memoryTrace()
    const files: Section = {
      id: 'preload:big.ts',
      text: 'export const x = 1\n'.repeat(400),
      priority: 1,
      cache: 'volatile',
    }
    const hint: Section = {
      id: 'hint',
      text: 'The data is NDJSON.',
      priority: 50,
      cache: 'volatile',
    }
    await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      system: 'Rules.',
      messages: hello,
      budgetTokens: 200,
      trace,
      middleware: [
        { name: 'sections', prepare: (turn) => ({ ...turn, userSections: [hint, files] }) },
      ],
    }).result
    const body = bodies()[0]!
    expect(wireText(body.messages.at(-1))).toBe('Hello\n\nThe data is NDJSON.')
    const notice = body.system?.at(-1)?.text ?? ''
    expect(notice).toContain('[Context note: some material was left out to fit the token budget.]')
    expect(notice).toContain('preload:big.ts')
    const budget = trace.byStage(AGENT_TRACE_STAGES.budget)[0]?.data
    expect(budget?.budget).toBe(200)
    expect(budget?.kept).toEqual(['system', 'omission-notice', 'hint'])
    expect(budget?.omissions).toEqual([
      expect.objectContaining({ id: 'preload:big.ts', reason: 'dropped' }),
    ])
    expect(OMISSION_NOTICE_ID).toBe('omission-notice')
  })

  test('the default budget is what the context window leaves: a small window drops sections, each one a warning', async () => {
    const { provider, bodies } = await emulated(['ok'])
    const tiny = { ...getModelInfo('claude-haiku-4-5'), contextWindow: 1200, maxOutput: 1000 }
    const big: Section = { id: 'big', text: 'word '.repeat(1000), priority: 1, cache: 'volatile' }
    const result = await runAgent({
      provider,
      model: tiny,
      messages: hello,
      middleware: [{ name: 'big', prepare: (turn) => ({ ...turn, userSections: [big] }) }],
    }).result
    expect(wireText(bodies()[0]?.messages.at(-1))).toBe('Hello')
    // the model is told in the omission notice; the caller in result.warnings, once per run
    const dropped = result.warnings.filter((w) => w.code === AGENT_LOOP_WARNINGS.sectionDropped)
    expect(dropped).toHaveLength(1)
    expect(dropped[0]?.message).toContain('"big"')
  })

  test('tokenCounter is the one budgets are counted with', async () => {
    const { provider } = await emulated(['ok'])
    const seen: string[] = []
    const counter = {
      id: 'chars',
      kind: 'estimate' as const,
      count: (text: string) => {
        seen.push(text)
        return text.length
      },
    }
    await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      system: 'S'.repeat(10),
      messages: hello,
      tokenCounter: counter,
    }).result
    expect(seen).toContain('S'.repeat(10))
    expect(seen).toContain('Hello')
  })

  test('the in-process scripted provider drives the same loop', async () => {
    const provider = scriptedProvider([
      { text: 'Using it.', toolCalls: [{ name: 'echo', input: { s: 'x' } }] },
      'Echoed.',
    ])
    const echo = defineTool({
      name: 'echo',
      description: '',
      input: z.object({ s: z.string() }),
      execute: ({ s }) => s,
    })
    const run = runAgent({ provider, model: 'claude-haiku-4-5', messages: hello, tools: [echo] })
    const events: AgentEvent[] = await collect(run.events)
    const result = await run.result
    expect(result.text).toBe('Echoed.')
    expect(provider.requests).toHaveLength(2)
    expect(provider.requests[1]?.messages.at(-1)?.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'call_0_0',
    })
    expect(events.filter((e) => e.type === 'tool-result')).toHaveLength(1)
  })
})

describe('unknown option keys', () => {
  test('are refused by runAgent with a ValidationError naming the key', () => {
    const provider = scriptedProvider([])
    const base = { provider, model: 'claude-haiku-4-5', messages: [] }
    for (const key of ['prepareStep', 'output', 'maxTurns', 'analyze']) {
      let error: unknown
      try {
        runAgent({ ...base, [key]: 1 } as never)
      } catch (e) {
        error = e
      }
      expect(ValidationError.isInstance(error)).toBe(true)
      expect((error as Error).message).toContain(key)
    }
  })
})
