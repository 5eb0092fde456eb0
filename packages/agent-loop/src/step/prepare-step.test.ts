// prepareStep and middleware prepareStep through the real Anthropic SDK against testkit.
import {
  type ContextMiddleware,
  type Message,
  type StepInfo,
  sessionMessages,
  textMessage,
  textOf,
  ValidationError,
} from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentResult } from '../events/events.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, memorySessionStore, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import type { PrepareStep, PrepareStepState } from './step-control.js'

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up',
  input: z.object({ word: z.string() }),
  execute: ({ word }) => (word === 'notes' ? 'see notes.txt' : `${word}: an animal`),
})
const spell = defineTool({
  name: 'spell',
  description: 'Spell a word',
  input: z.object({ word: z.string() }),
  execute: ({ word }) => word.split('').join('-'),
})

const twoTools = [
  { toolUse: { name: 'lookup', input: { word: 'wombat' } } },
  { toolUse: { name: 'spell', input: { word: 'wombat' } } },
  'A wombat: w-o-m-b-a-t.',
]

async function run(
  options: Omit<Parameters<typeof runAgent>[0], 'provider' | 'model'> & {
    script?: Parameters<typeof emulated>[0]
  },
): Promise<{
  result: AgentResult
  bodies: ReturnType<Awaited<ReturnType<typeof emulated>>['bodies']>
}> {
  const { script, ...rest } = options
  const { provider, bodies } = await emulated(script ?? twoTools)
  const r = runAgent({ provider, model: 'claude-haiku-4-5', tools: [lookup, spell], ...rest })
  await collect(r.events)
  return { result: await r.result, bodies: bodies() }
}

const systemText = (b: { system?: Array<{ text: string }> }) =>
  (b.system ?? []).map((s) => s.text).join('\n')

describe('runAgent prepareStep', () => {
  test('each call gets its own model, active tools, tool choice and system; state counts from 0', async () => {
    const states: PrepareStepState[] = []
    const prepareStep: PrepareStep = (state) => {
      states.push(state)
      if (state.step === 1) return { activeTools: ['lookup'], toolChoice: { tool: 'lookup' } }
      if (state.step === 2) return { model: 'claude-sonnet-4-6', system: 'Spell now.' }
      return undefined
    }
    const { result, bodies } = await run({
      system: 'Be brief.',
      messages: [textMessage('user', 'What is a wombat?')],
      prepareStep,
    })
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('A wombat: w-o-m-b-a-t.')
    expect(states.map((s) => s.step)).toEqual([1, 2, 3])
    expect(states.map((s) => s.messages.length)).toEqual([1, 3, 5])
    expect(states[0]?.lastReply).toBeUndefined()
    expect(states[1]?.lastReply?.content.some((b) => b.type === 'tool_call')).toBe(true)
    expect(states[2]?.usage.output).toBeGreaterThan(states[1]?.usage.output ?? 0)
    const [first, second, third] = bodies
    expect(first?.tools?.map((t) => t.name)).toEqual(['lookup'])
    expect((first as { tool_choice?: unknown }).tool_choice).toEqual({
      type: 'tool',
      name: 'lookup',
    })
    expect(systemText(first!)).toBe('Be brief.')
    expect(second?.model).toBe('claude-sonnet-4-6')
    expect(systemText(second!)).toBe('Spell now.')
    expect(second?.tools?.map((t) => t.name)).toEqual(['lookup', 'spell'])
    // nothing lasts past its call
    expect(third?.model).toBe('claude-haiku-4-5')
    expect(systemText(third!)).toBe('Be brief.')
    expect(third).not.toHaveProperty('tool_choice')
  })

  test('replaced messages go to that call only; the run and the session keep the real ones', async () => {
    const store = memorySessionStore()
    const { result, bodies } = await run({
      messages: [textMessage('user', 'What is a wombat?')],
      session: { store, id: 's1' },
      prepareStep: ({ step, messages }) =>
        step === 2 && messages.length === 3
          ? { messages: [textMessage('user', 'Shortened.')] }
          : undefined,
    })
    expect(result.error).toBeUndefined()
    expect(bodies[1]?.messages.map((m) => wireText(m))).toEqual(['Shortened.'])
    expect(bodies[2]?.messages).toHaveLength(5)
    const saved = sessionMessages(store.data.get('s1') ?? [])
    expect(saved.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(saved.some((m) => textOf(m as Message).includes('Shortened.'))).toBe(false)
    expect(result.messages).toEqual(saved.slice(1))
  })

  test('a call to a tool the step did not offer gets an error result and never runs', async () => {
    let ran = 0
    const counted = defineTool({
      name: 'count',
      description: 'Count',
      input: z.object({ word: z.string() }),
      execute: () => String(++ran),
    })
    const { provider } = await emulated([
      { toolUse: { name: 'count', input: { word: 'x' } } },
      'Done.',
    ])
    const r = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: [lookup, counted],
      messages: [textMessage('user', 'Go')],
      prepareStep: () => ({ activeTools: ['lookup'] }),
    })
    const result = await r.result
    expect(result.error).toBeUndefined()
    expect(ran).toBe(0)
    const toolResult = result.messages[1]?.content[0]
    expect(toolResult).toMatchObject({ type: 'tool_result', isError: true })
    expect(JSON.stringify(toolResult)).toContain('not offered in this step')
  })

  const bad: Array<[string, unknown, RegExp]> = [
    ['an unknown active tool', { activeTools: ['nope'] }, /activeTools: no tool is named "nope"/],
    [
      'a tool choice outside the active tools',
      { activeTools: ['lookup'], toolChoice: { tool: 'spell' } },
      /toolChoice: no tool is named "spell"/,
    ],
    ['a number', 42, /prepareStep result/],
    ['an unknown key', { tools: [] }, /prepareStep result/],
    ['a bad tool choice', { toolChoice: 'required' }, /prepareStep result/],
  ]
  for (const [what, value, message] of bad) {
    test(`${what} ends the run with a ValidationError, before any call`, async () => {
      const { result, bodies } = await run({
        messages: [textMessage('user', 'Hi')],
        prepareStep: () => value as never,
      })
      expect(result.stopReason).toBe('error')
      expect(ValidationError.isInstance(result.error)).toBe(true)
      expect(result.error?.message).toMatch(message)
      expect(bodies).toHaveLength(0)
    })
  }

  test('a prepareStep that throws ends the run with an error result, never a rejection', async () => {
    const { result } = await run({
      messages: [textMessage('user', 'Hi')],
      prepareStep: () => {
        throw new Error('boom')
      },
    })
    expect(result.stopReason).toBe('error')
    expect(result.error?.message).toContain('boom')
  })

  test('runAgent checks that prepareStep is a function', () => {
    const provider = { name: 'x', stream: () => (async function* () {})() }
    expect(() =>
      runAgent({
        provider,
        model: 'claude-haiku-4-5',
        messages: [textMessage('user', 'Hi')],
        prepareStep: 'soon' as never,
      }),
    ).toThrow(/prepareStep/)
  })
})

/** Adds the file a tool result named to that one call (a stand-in for preload's loader). */
function fileNamedByLastResult(seen: StepInfo[]): ContextMiddleware {
  return {
    name: 'named-file',
    prepareStep(turn, _run, info) {
      seen.push(info)
      const last = info.newMessages.at(-1)
      const named = last ? JSON.stringify(last.content).match(/see (\w+\.txt)/)?.[1] : undefined
      if (!named) return turn
      const section = {
        id: `file:${named}`,
        text: `<file name="${named}">remember the wombat</file>`,
        priority: 10,
        cache: 'volatile' as const,
      }
      return { ...turn, userSections: [...turn.userSections, section] }
    },
  }
}

describe('middleware prepareStep', () => {
  test('runs before each call after prepare, after the option, for that call only', async () => {
    const seen: StepInfo[] = []
    const order: string[] = []
    const { result, bodies } = await run({
      script: [
        { toolUse: { name: 'lookup', input: { word: 'notes' } } },
        { toolUse: { name: 'lookup', input: { word: 'emu' } } },
        'Done.',
      ],
      messages: [textMessage('user', 'Read the notes')],
      middleware: [
        {
          name: 'p',
          prepare: (t) => {
            order.push('prepare')
            return t
          },
        },
        fileNamedByLastResult(seen),
      ],
      prepareStep: ({ step }) => {
        order.push(`option ${step}`)
        return step === 2 ? { activeTools: ['lookup'] } : undefined
      },
    })
    expect(result.error).toBeUndefined()
    expect(order).toEqual(['prepare', 'option 1', 'option 2', 'option 3'])
    expect(seen.map((s) => [s.step, s.newMessages.length, s.lastReply === undefined])).toEqual([
      [1, 0, true],
      [2, 2, false],
      [3, 4, false],
    ])
    const texts = bodies.map((b) => JSON.stringify(b.messages))
    expect(texts[0]).not.toContain('remember the wombat')
    expect(texts[1]).toContain('remember the wombat')
    expect(texts[2]).not.toContain('remember the wombat')
    // the middleware saw the option's narrowed tools
    expect(bodies[1]?.tools?.map((t) => t.name)).toEqual(['lookup'])
  })

  test('a middleware prepareStep that returns no turn ends the run with a typed error', async () => {
    const { result, bodies } = await run({
      messages: [textMessage('user', 'Hi')],
      middleware: [{ name: 'broken', prepareStep: () => undefined as never }],
    })
    expect(result.stopReason).toBe('error')
    expect(ValidationError.isInstance(result.error)).toBe(true)
    expect(result.error?.message).toContain('broken.prepareStep')
    expect(bodies).toHaveLength(0)
  })
})
