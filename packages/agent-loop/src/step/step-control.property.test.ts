// Property: per-step preparation changes what each call is offered and sees, never what the
// run saves. Through the real SDK against testkit.
import { type Message, sessionMessages, textMessage } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { anthropicToolChoice, type ToolChoice } from '../provider/tool-choice.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, memorySessionStore } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import type { StepPreparation } from './step-control.js'

const tool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    input: z.object({ n: z.number() }),
    execute: ({ n }) => `${name} ${n}`,
  })
const tools = [tool('lookup'), tool('spell'), tool('count')]
const names = tools.map((t) => t.name)

const stepPlan = fc.record({
  others: fc.subarray(['spell', 'count']),
  narrow: fc.boolean(),
  choice: fc.constantFrom('auto', 'any', 'none', 'named', 'default'),
  replace: fc.boolean(),
})

async function runWith(steps: number, prepare?: (step: number) => StepPreparation | undefined) {
  const script = [
    ...Array.from({ length: steps }, (_, i) => ({ toolUse: { name: 'lookup', input: { n: i } } })),
    'Done.',
  ]
  const { provider, bodies } = await emulated(script)
  const store = memorySessionStore()
  const run = runAgent({
    provider,
    model: 'claude-haiku-4-5',
    messages: [textMessage('user', 'Go')],
    tools,
    session: { store, id: 'p' },
    loopGuard: false,
    ...(prepare ? { prepareStep: ({ step }) => prepare(step) } : {}),
  })
  await collect(run.events)
  const result = await run.result
  return { result, bodies: bodies(), saved: sessionMessages(store.data.get('p') ?? []) }
}

describe('prepareStep (property)', () => {
  test('each call is offered what its step chose; the saved run is the same as without it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepPlan, { minLength: 1, maxLength: 4 }), async (plans) => {
        const steps = plans.length - 1
        const expected: Array<{ tools: string[]; choice: ToolChoice | undefined; first: boolean }> =
          []
        const prepared = await runWith(steps, (step) => {
          const p = plans[step - 1]!
          const active = names.filter((n) => n === 'lookup' || p.others.includes(n))
          const offered = p.narrow ? active : names
          const choice: ToolChoice | undefined =
            p.choice === 'default'
              ? undefined
              : p.choice === 'named'
                ? { tool: 'lookup' }
                : p.choice
          expected.push({ tools: offered, choice, first: p.replace })
          return {
            ...(p.narrow ? { activeTools: active } : {}),
            ...(choice ? { toolChoice: choice } : {}),
            ...(p.replace ? { messages: [textMessage('user', 'Only this.')] } : {}),
          }
        })
        const plain = await runWith(steps)
        expect(prepared.result.error).toBeUndefined()
        expect(prepared.bodies).toHaveLength(plans.length)
        prepared.bodies.forEach((body, i) => {
          const want = expected[i]!
          expect(body.tools?.map((t) => t.name)).toEqual(want.tools)
          const sent = (body as { tool_choice?: unknown }).tool_choice
          expect(sent).toEqual(want.choice ? anthropicToolChoice(want.choice) : undefined)
          if (want.first) expect(body.messages).toHaveLength(1)
          else expect(body.messages).toHaveLength(1 + 2 * i)
        })
        // the same replies and results (usage differs: the calls saw different input)
        const strip = (ms: readonly Message[]) =>
          JSON.parse(
            JSON.stringify(ms.map((m) => [m.role, m.content])).replace(
              /"(id|toolCallId)":"[^"]*"/g,
              '"$1":"x"',
            ),
          )
        expect(strip(prepared.result.messages)).toEqual(strip(plain.result.messages))
        expect(prepared.saved).toEqual([textMessage('user', 'Go'), ...prepared.result.messages])
      }),
      { numRuns: 15 },
    )
  }, 60_000)
})
