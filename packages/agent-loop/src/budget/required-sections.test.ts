import {
  createTokenCounter,
  estimateRequestTokens,
  fitRequest,
  getModelInfo,
  textMessage,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { requestArb } from '../../../../test-utils/request-fixtures.js'
import { runAgent } from '../run/run-agent.js'
import { emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { fitRequestSections, RunTokenCounter, sectionBudget } from './budget.js'
import { RequiredSectionsError } from './errors.js'

const hello = [textMessage('user', 'Hello')]

describe('required sections', () => {
  test('a tool result that fills the window: the system prompt is not dropped silently, the run ends typed', async () => {
    const huge = defineTool({
      name: 'dump',
      description: 'Returns a lot',
      input: z.object({}),
      execute: () => 'word '.repeat(3_000),
    })
    const { provider, emulator } = await emulated([
      { text: 'Reading.', toolUse: { name: 'dump', input: {} } },
      'never sent',
    ])
    const small = { ...getModelInfo('claude-haiku-4-5'), contextWindow: 4_000, maxOutput: 500 }
    const result = await runAgent({
      provider,
      model: small,
      system: `You are careful. Safety rules: ${'never do harm. '.repeat(40)}`,
      tools: [huge],
      messages: hello,
      // sent whole: the default (a quarter of the window) would clip the result and the run fit
      toolResultMaxTokens: 10_000,
    }).result
    expect(result.stopReason).toBe('error')
    expect(RequiredSectionsError.isInstance(result.error)).toBe(true)
    expect(result.error?.details).toMatchObject({
      required: ['system'],
      contextWindow: 4_000,
      windowSource: 'option',
    })
    expect(result.error?.message).toContain('of the 4000-token context window (as given)')
    // the first call went out with the system prompt; the second was never sent without it
    expect(emulator.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(1)
    // the step that ran is saved whole
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'user'])
  })
})

describe('fitRequestSections', () => {
  test('property: core’s fitRequest (the answer @contextkit/ai-sdk gives too), from the run’s memo; required sections over the budget throw', () => {
    const counter = createTokenCounter()
    fc.assert(
      fc.property(requestArb({ required: true }), fc.nat(), (request, cut) => {
        // the loop keeps this run's replies and results apart from the turn's messages
        const at = cut % (request.messages.length + 1)
        const run = new RunTokenCounter(counter)
        const input = {
          ...request,
          messages: request.messages.slice(0, at),
          extra: request.messages.slice(at),
          counter: run,
        }
        const core = fitRequest({ ...request, counter })
        expect(run.messages(input.messages) + run.tools(request.tools)).toBe(
          estimateRequestTokens({ messages: input.messages, tools: request.tools }, counter),
        )
        expect(sectionBudget(input)).toBe(core.budget)
        if (core.fits) expect(fitRequestSections(input)).toEqual(core)
        else expect(() => fitRequestSections(input)).toThrow(RequiredSectionsError)
      }),
      { numRuns: 200 },
    )
  })
})
