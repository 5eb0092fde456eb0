import { textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, memorySessionStore, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { USER_CONTEXT_HEADING, userContextSection } from './answers.js'
import { PLAN_SYSTEM_PROMPT, type PlanQuestion, parsePlanAnswer, planSection } from './plan.js'

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

describe('plan.ask: an answer to the question continues the run', () => {
  const clarifyJson =
    '{"action":"clarify","question":"Tags on tasks or on projects?","context":"Both have a model."}'

  test('the answer goes in as "## Additional Context from User"; the plan call runs again and the agent sees both', async () => {
    const store = memorySessionStore()
    const asked: PlanQuestion[] = []
    const { provider, bodies } = await emulated([
      clarifyJson,
      (req) => {
        expect(req.lastUserText).toContain(`${USER_CONTEXT_HEADING}\n\n`)
        expect(req.lastUserText).toContain('The user answered: On tasks, please.')
        return '{"action":"proceed","plan":"1. Add tags to the Task model"}'
      },
      'Added.',
    ])
    const run = runAgent({
      provider,
      ...ask({
        plan: {
          ask: (q: PlanQuestion) => {
            asked.push(q)
            return 'On tasks, please.'
          },
        },
      }),
      session: { store, id: 'a1' },
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(result.plan).toBe('1. Add tags to the Task model')
    expect(result.steps).toBe(3)
    expect(
      asked.map(({ question, context, asked: before }) => ({ question, context, before })),
    ).toEqual([
      { question: 'Tags on tasks or on projects?', context: 'Both have a model.', before: [] },
    ])
    const agentUser = wireText(bodies()[2]?.messages.at(-1))
    expect(agentUser).toBe(
      [
        '## Your Plan\n\nFollow this plan:\n1. Add tags to the Task model',
        '## Additional Context from User\n\nYou asked: Tags on tasks or on projects?\nThe user answered: On tasks, please.',
        'Add a tags field to tasks.',
      ].join('\n\n'),
    )
    const phases = events.flatMap((e) => (e.type === 'step-start' ? [`${e.phase}:${e.step}`] : []))
    expect(phases).toEqual(['plan:0', 'plan:0', 'agent:1'])
    // request only, like the plan: the session keeps what the user wrote
    const saved = [...store.data.get('a1')!].flatMap((e) =>
      e.type === 'message' ? [e.message] : [],
    )
    expect(saved[0]).toEqual(textMessage('user', 'Add a tags field to tasks.'))
  })

  test('no answer (undefined, blank, a throw) ends the run with the question, as without ask', async () => {
    for (const answer of [
      () => undefined,
      () => '   ',
      () => Promise.reject(new Error('no TTY')),
    ]) {
      const { provider, bodies } = await emulated([clarifyJson])
      const result = await runAgent({ provider, ...ask({ plan: { ask: answer } }) }).result
      expect(result.stopReason).toBe('clarify')
      expect(result.question).toBe('Tags on tasks or on projects?')
      expect(bodies()).toHaveLength(1)
      const codes = result.warnings.map((w) => w.code)
      expect(codes).toEqual(
        answer.toString().includes('reject') ? ['agent_loop_plan_question_failed'] : [],
      )
    }
  })

  test('maxQuestions bounds the questions; the next one ends the run', async () => {
    let n = 0
    const { provider, bodies } = await emulated([
      clarifyJson,
      '{"action":"clarify","question":"Free text or a fixed list?"}',
    ])
    const result = await runAgent({
      provider,
      ...ask({ plan: { maxQuestions: 1, ask: () => `answer ${++n}` } }),
    }).result
    expect(result.stopReason).toBe('clarify')
    expect(result.question).toBe('Free text or a fixed list?')
    expect(n).toBe(1)
    expect(bodies()).toHaveLength(2)
  })

  test('bad plan options are a ValidationError naming the option', () => {
    expect(() => runAgent({ provider: {} as never, ...ask({ plan: { ask: 'yes' } }) })).toThrow(
      /plan/,
    )
    expect(() => userContextSection('x' as never)).toThrow(
      expect.objectContaining({ code: 'validation_error' }),
    )
  })
})

describe('PLAN_SYSTEM_PROMPT carries the rules of seed 002', () => {
  test.each([
    ['one JSON object, proceed or clarify', /"action": "proceed"[\s\S]*"action": "clarify"/],
    ['a specific, numbered plan naming files', /names the files .* one numbered step per line/],
    ['use files already given under Pre-loaded Files', /under "Pre-loaded Files"/],
    ['an example plan', /An example of a good one:\n\{"action": "proceed", "plan": "1\. Read /],
    ['clarify which of several things for a vague change', /vague change .* ask which one/],
    ['clarify a feature with no details', /no word on what it should do: ask what it should do/],
    ['clarify something not in the context', /not in what you were given: ask what is meant/],
    [
      'proceed on plain requests, lean toward proceeding',
      /Proceed when the request is plain.*lean toward proceeding/,
    ],
  ])('%s', (_rule, pattern) => {
    expect(PLAN_SYSTEM_PROMPT).toMatch(pattern)
  })

  test('the example plan is a valid plan answer', () => {
    const line = PLAN_SYSTEM_PROMPT.split('\n').find((l) =>
      l.startsWith('{"action": "proceed", "plan": "1.'),
    )!
    const parsed = parsePlanAnswer(line)
    expect(
      'answer' in parsed && parsed.answer.action === 'proceed' && parsed.answer.plan.split('\n'),
    ).toHaveLength(5)
  })
})
