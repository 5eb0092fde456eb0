import { textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, memorySessionStore, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { parsePlanAnswer, planSection } from './plan.js'

const read = defineTool({
  name: 'read_file',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
})

const ask = (extra = {}) => ({
  model: 'claude-haiku-4-5',
  messages: [textMessage('user', 'Add a tags field to tasks.')],
  tools: [read],
  plan: true as const,
  ...extra,
})

describe('parsePlanAnswer', () => {
  test('reads the JSON object, tolerating a fence around it; reports what is wrong', () => {
    expect(parsePlanAnswer('```json\n{"action":"proceed","plan":"1. read"}\n```')).toEqual({
      answer: { action: 'proceed', plan: '1. read' },
    })
    expect(parsePlanAnswer('{"action":"clarify","question":"Which one?"}')).toEqual({
      answer: { action: 'clarify', question: 'Which one?', context: '' },
    })
    expect(parsePlanAnswer('Sure! I will do it.')).toEqual({
      problem: 'the reply holds no JSON object',
    })
    expect('problem' in parsePlanAnswer('{"action":"proceed"}')).toBe(true)
    expect('problem' in parsePlanAnswer('{"action": proceed}')).toBe(true)
  })
})

describe('the plan phase (analyze)', () => {
  test('proceed: the plan goes at the top of the first user turn as "## Your Plan"', async () => {
    const store = memorySessionStore()
    const { provider, bodies } = await emulated([
      '{"action": "proceed", "plan": "1. Read src/models.py\\n2. Add the field"}',
      { toolUse: { name: 'read_file', input: { path: 'src/models.py' } } },
      'Added.',
    ])
    const run = runAgent({ provider, ...ask(), session: { store, id: 's1' } })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(result.plan).toBe('1. Read src/models.py\n2. Add the field')
    expect(result.steps).toBe(3)
    const [plan, first, second] = bodies()
    expect(plan?.tools).toBeUndefined()
    expect(plan?.system?.[0]?.text).toContain('"action": "proceed"')
    const firstUser = wireText(first?.messages.at(-1))
    expect(firstUser).toBe(`${planSection(result.plan!).text}\n\nAdd a tags field to tasks.`)
    expect(firstUser.startsWith('## Your Plan\n\nFollow this plan:\n1. Read src/models.py')).toBe(
      true,
    )
    // later calls keep the plan in that same user turn (it is part of the turn's request)
    expect(wireText(second?.messages[0])).toContain('## Your Plan')
    // the session keeps what the user wrote; the plan call is not part of the conversation
    const saved = [...store.data.get('s1')!].flatMap((e) =>
      e.type === 'message' ? [e.message] : [],
    )
    expect(saved[0]).toEqual(textMessage('user', 'Add a tags field to tasks.'))
    expect(saved.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    const phases = events.flatMap((e) => (e.type === 'step-start' ? [`${e.phase}:${e.step}`] : []))
    expect(phases).toEqual(['plan:0', 'agent:1', 'agent:2'])
  })

  test('clarify: the run ends with the question, and the session keeps it for the answer', async () => {
    const store = memorySessionStore()
    const { provider, bodies } = await emulated([
      '{"action":"clarify","question":"Tags on tasks or on projects?","context":"Both have a model."}',
    ])
    const result = await runAgent({ provider, ...ask(), session: { store, id: 's2' } }).result
    expect(result.stopReason).toBe('clarify')
    expect(result.question).toBe('Tags on tasks or on projects?')
    expect(result.context).toBe('Both have a model.')
    expect(bodies()).toHaveLength(1)
    expect(result.messages).toEqual([
      expect.objectContaining({
        role: 'assistant',
        content: [{ type: 'text', text: 'Tags on tasks or on projects?' }],
      }),
    ])
    expect(store.data.get('s2')?.filter((e) => e.type === 'message')).toHaveLength(2)
  })

  test('invalid JSON gets one repair request; a second failure is a warning and the run goes on', async () => {
    const repaired = await emulated([
      'I think we should proceed.',
      (req) => {
        expect(req.lastUserText).toContain(
          'Your reply could not be used: the reply holds no JSON object',
        )
        return '{"action":"proceed","plan":"1. Do it"}'
      },
      'Done.',
    ])
    const ok = await runAgent({ provider: repaired.provider, ...ask() }).result
    expect(ok.plan).toBe('1. Do it')
    expect(ok.steps).toBe(3)
    expect(ok.warnings).toEqual([])

    const hopeless = await emulated(['no json', '{"action":"maybe"}', 'Done anyway.'])
    const run = runAgent({ provider: hopeless.provider, ...ask() })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(result.plan).toBeUndefined()
    expect(result.warnings.map((w) => w.code)).toEqual(['agent_loop_plan_invalid'])
    expect(events.some((e: AgentEvent) => e.type === 'warning')).toBe(true)
    expect(wireText(hopeless.bodies()[2]?.messages.at(-1))).toBe('Add a tags field to tasks.')
  })

  test('analyze.model and analyze.system are used for the plan call only', async () => {
    const { provider, bodies } = await emulated(['{"action":"proceed","plan":"1. x"}', 'ok'])
    await runAgent({
      provider,
      ...ask({ plan: { model: 'claude-sonnet-4-5', system: 'Plan briefly. JSON only.' } }),
    }).result
    expect(bodies().map((b) => b.model)).toEqual(['claude-sonnet-4-5', 'claude-haiku-4-5'])
    expect(bodies()[0]?.system?.[0]?.text).toBe('Plan briefly. JSON only.')
  })
})
