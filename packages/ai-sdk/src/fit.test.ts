import {
  createTokenCounter,
  createTurnContext,
  estimateRequestTokens,
  fitRequest,
  getModelInfo,
  type ModelInfo,
  OMISSION_NOTICE_ID,
  type TurnContext,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  CODING_EXCHANGE,
  CODING_SECTIONS,
  CODING_TOOLS,
  type FixtureRequest,
  requestArb,
} from '../../../test-utils/request-fixtures.js'
import { fitTurn } from './fit.js'

const counter = createTokenCounter()

/** `request` as the turn `transformParams` builds. */
function turnOf(request: FixtureRequest): TurnContext {
  const model: ModelInfo = {
    ...getModelInfo('claude-haiku-4-5'),
    contextWindow: request.contextWindow,
  }
  const { system, userSections, omitted, messages, tools } = request
  return createTurnContext({ model, system, userSections, omitted, messages, tools })
}

describe('fitTurn', () => {
  test('budgets a real exchange by core’s estimate: framing, redacted thinking, raw calls and images count', () => {
    const request: FixtureRequest = {
      ...CODING_SECTIONS,
      omitted: [],
      messages: CODING_EXCHANGE,
      tools: CODING_TOOLS,
      contextWindow: 0,
      maxTokens: 2000,
    }
    const used = estimateRequestTokens({ messages: CODING_EXCHANGE, tools: CODING_TOOLS }, counter)
    // the window leaves the sections exactly nothing: every droppable one goes
    const tight = fitTurn(turnOf({ ...request, contextWindow: 2000 + used }), {
      counter,
      maxTokens: 2000,
    })
    expect(tight.system.map((s) => s.id)).toEqual(['instructions', OMISSION_NOTICE_ID])
    expect(tight.userSections).toEqual([])
    // room for the messages, the tools and every section as core counts them: all kept
    const sections = [...request.system, ...request.userSections]
    const cost = sections.reduce((sum, s) => sum + counter.count(s.text), 0)
    const roomy = fitTurn(turnOf({ ...request, contextWindow: 2000 + used + cost }), {
      counter,
      maxTokens: 2000,
    })
    expect(roomy.system).toEqual(request.system)
    expect(roomy.userSections).toEqual(request.userSections)
    expect(roomy.omitted).toEqual([])
  })

  test('a turn with nothing to fit and nothing omitted comes back as it is', () => {
    const turn = turnOf({
      system: [],
      userSections: [],
      omitted: [],
      messages: CODING_EXCHANGE,
      tools: [],
      contextWindow: 1000,
      maxTokens: 10,
    })
    expect(fitTurn(turn, { counter, maxTokens: 10 })).toBe(turn)
  })

  test('property: the same sections, omissions and budget as core’s fitRequest, which the agent loop uses too', () => {
    fc.assert(
      fc.property(requestArb({ required: true }), fc.option(fc.nat(3000)), (request, budget) => {
        const options = {
          counter,
          maxTokens: request.maxTokens,
          ...(budget === null ? {} : { budgetTokens: budget }),
        }
        const turn = turnOf(request)
        const fitted = fitTurn(turn, options)
        const core = fitRequest({
          ...request,
          ...(budget === null ? {} : { budgetTokens: budget }),
          counter,
        })
        expect(fitted.system).toEqual(core.system)
        expect(fitted.userSections).toEqual(core.userSections)
        expect(fitted.omitted).toEqual(core.omitted)
        expect(fitted.messages).toBe(turn.messages)
        expect(fitted.tools).toBe(turn.tools)
      }),
      { numRuns: 200 },
    )
  })
})
