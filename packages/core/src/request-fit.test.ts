import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  CODING_EXCHANGE,
  CODING_SECTIONS,
  CODING_TOOLS,
  messageArb,
  requestArb,
} from '../../../test-utils/request-fixtures.js'
import { ValidationError } from './errors.js'
import { estimateRequestTokens } from './message-estimate.js'
import { fitRequest, OMISSION_NOTICE_ID, type RequestFitInput } from './request-fit.js'
import { fitSections, type Section } from './sections.js'
import { createTokenCounter, type TokenCounter } from './tokens.js'

/** One token per character: makes expectations exact. */
const chars: TokenCounter = { id: 'chars', kind: 'exact', count: (t) => t.length }
const sectionTokens = (sections: readonly Section[]) =>
  sections.reduce((sum, s) => sum + chars.count(s.text), 0)

/** The real turn: the coding exchange, its tools and sections, in a window of `contextWindow`. */
function codingTurn(contextWindow: number): RequestFitInput {
  return {
    ...CODING_SECTIONS,
    messages: CODING_EXCHANGE,
    tools: CODING_TOOLS,
    contextWindow,
    maxTokens: 1000,
    counter: chars,
  }
}
const used = estimateRequestTokens({ messages: CODING_EXCHANGE, tools: CODING_TOOLS }, chars)
const allSections = [...CODING_SECTIONS.system, ...CODING_SECTIONS.userSections]
/** A window of 1,000 with a 100-token reply and nothing else: a budget of 900. */
const budgetOnly = { contextWindow: 1000, maxTokens: 100, counter: chars }

describe('fitRequest', () => {
  test('keeps everything, with no notice, when the window has room', () => {
    const fit = fitRequest(codingTurn(100_000))
    expect(fit.budget).toBe(100_000 - 1000 - used)
    expect(fit.system).toEqual(CODING_SECTIONS.system)
    expect(fit.userSections).toEqual(CODING_SECTIONS.userSections)
    expect(fit.omitted).toEqual([])
    expect(fit.tokens).toBe(sectionTokens(allSections))
    expect(fit.fits).toBe(true)
  })

  test('a tight window: the lowest priorities go first, each side keeps its own, and the notice says so', () => {
    // 40 short: the preloaded file's shorter form saves enough, the rest stays whole
    const budget = sectionTokens(allSections) - 40
    const fit = fitRequest(codingTurn(budget + 1000 + used))
    expect(fit.budget).toBe(budget)
    expect(fit.tokens).toBeLessThanOrEqual(budget)
    expect(fit.omitted.map((o) => [o.id, o.reason])).toEqual([
      ['preload:data/regions.json', 'shortened'],
    ])
    expect(fit.userSections.map((s) => s.id)).toEqual(['context-hint', 'preload:data/regions.json'])
    expect(fit.system.map((s) => s.id)).toEqual([
      'instructions',
      'bootstrap:AGENTS.md',
      'resumption',
      OMISSION_NOTICE_ID,
    ])
    const notice = fit.system.at(-1)
    expect(notice).toMatchObject({ cache: 'volatile', priority: Number.MAX_SAFE_INTEGER })
    expect(notice?.text).toContain('Shortened (1')
    expect(notice?.text).toContain('preload:data/regions.json')
  })

  test('earlier omissions come first and alone still bring the notice', () => {
    const earlier = [{ id: 'preload:big.csv', reason: 'dropped' as const, tokensSaved: 9000 }]
    const fit = fitRequest({ ...codingTurn(100_000), omitted: earlier })
    expect(fit.omitted).toEqual(earlier)
    expect(fit.system.at(-1)?.id).toBe(OMISSION_NOTICE_ID)
    const empty = fitRequest({ system: [], userSections: [], omitted: earlier, ...budgetOnly })
    expect(empty.system.map((s) => s.id)).toEqual([OMISSION_NOTICE_ID])
  })

  test('budgetTokens wins over the window; requestTokens stands for the messages and tools', () => {
    expect(fitRequest({ ...codingTurn(100_000), budgetTokens: 42 }).budget).toBe(42)
    const { messages: _m, tools: _t, ...rest } = codingTurn(100_000)
    expect(fitRequest({ ...rest, requestTokens: used })).toEqual(fitRequest(codingTurn(100_000)))
    // never a negative budget
    expect(fitRequest(codingTurn(10)).budget).toBe(0)
  })

  test('with no sections it fits nothing and reports the budget', () => {
    const fit = fitRequest({ system: [], userSections: [], ...budgetOnly })
    expect(fit).toEqual({
      system: [],
      userSections: [],
      omitted: [],
      budget: 900,
      tokens: 0,
      fits: true,
    })
  })

  test('required sections over the budget: fits is false, and they are all kept', () => {
    const fit = fitRequest({ ...codingTurn(100_000), budgetTokens: 10 })
    expect(fit.fits).toBe(false)
    expect(fit.system.map((s) => s.id)).toEqual(['instructions', OMISSION_NOTICE_ID])
    expect(fit.userSections).toEqual([])
  })

  test('checks its input, and the sections unless the caller did', () => {
    const bad = { ...CODING_SECTIONS.system[0], cache: 'sometimes' } as unknown as Section
    const turn = { ...codingTurn(100_000), system: [bad] }
    expect(() => fitRequest(turn)).toThrow(ValidationError)
    expect(fitRequest({ ...turn, sectionsChecked: true }).system).toEqual([bad])
    const wrong: Array<[unknown, RegExp]> = [
      [null, /input must be an object/],
      [{ ...codingTurn(1), system: 'x' }, /input\.system must be an array/],
      [{ ...codingTurn(1), userSections: undefined }, /input\.userSections must be an array/],
      [{ ...codingTurn(1), omitted: {} }, /input\.omitted must be an array/],
      [{ ...codingTurn(1), contextWindow: Number.NaN }, /input\.contextWindow must be a finite/],
      [{ ...codingTurn(1), maxTokens: '10' }, /input\.maxTokens must be a finite/],
      [{ ...codingTurn(1), requestTokens: Number.POSITIVE_INFINITY }, /input\.requestTokens/],
      [{ ...codingTurn(1), messages: [1] }, /messages\[0\] must be an object/],
      [{ ...codingTurn(1), budgetTokens: -1 }, /budgetTokens/],
    ]
    for (const [input, message] of wrong) {
      expect(() => fitRequest(input as never)).toThrow(ValidationError)
      expect(() => fitRequest(input as never)).toThrow(message)
    }
  })

  test('property: without required sections the kept ones never exceed the budget', () => {
    const counter = createTokenCounter()
    fc.assert(
      fc.property(requestArb(), (request) => {
        const fit = fitRequest({ ...request, counter })
        const kept = [...fit.system.filter((s) => s.id !== OMISSION_NOTICE_ID), ...fit.userSections]
        const cost = kept.reduce((sum, s) => sum + counter.count(s.text), 0)
        expect(fit.fits).toBe(true)
        expect(fit.tokens).toBe(cost)
        expect(cost).toBeLessThanOrEqual(fit.budget)
        const used = estimateRequestTokens(request, counter)
        expect(fit.budget).toBe(Math.max(0, request.contextWindow - request.maxTokens - used))
      }),
      { numRuns: 300 },
    )
  })

  test('property: fitSections over both sides, each kept section on its side, a notice exactly when something is omitted', () => {
    fc.assert(
      fc.property(requestArb({ required: true }), (request) => {
        const fit = fitRequest({ ...request, counter: chars })
        const all = [...request.system, ...request.userSections]
        const alone = fitSections(all, fit.budget, chars)
        expect(fit.fits).toBe(alone.fits)
        expect(fit.tokens).toBe(alone.tokens)
        expect(fit.omitted).toEqual([...request.omitted, ...alone.omissions])
        const notice = fit.system.at(-1)?.id === OMISSION_NOTICE_ID
        expect(notice).toBe(fit.omitted.length > 0)
        const system = notice ? fit.system.slice(0, -1) : fit.system
        expect([...system, ...fit.userSections]).toEqual(alone.kept)
        const userIds = new Set(request.userSections.map((s) => s.id))
        expect(system.every((s) => !userIds.has(s.id))).toBe(true)
        expect(fit.userSections.every((s) => userIds.has(s.id))).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  test('property: more history never raises the budget', () => {
    fc.assert(
      fc.property(requestArb(), messageArb, (request, more) => {
        const before = fitRequest({ ...request, counter: chars }).budget
        const after = fitRequest({
          ...request,
          messages: [...request.messages, more],
          counter: chars,
        }).budget
        expect(after).toBeLessThanOrEqual(before)
      }),
      { numRuns: 200 },
    )
  })
})
