import { createTokenCounter } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { addAnchor } from './capture.js'
import { INJECTED_END, INJECTED_START } from './injected-text.js'
import { emptySelfState, type SelfState } from './self-state.js'
import {
  buildResumptionMessage,
  buildResumptionSection,
  type ResumptionContext,
  resumptionContextFrom,
} from './wake-up.js'

const NOW = Date.parse('2026-03-01T12:00:00.000Z')
const clock = () => NOW
const HOUR = 3_600_000

function stateWith(tailAgeMs: number, extra: Partial<SelfState> = {}): SelfState {
  let state: SelfState = {
    ...emptySelfState('prev', { now: clock }),
    streamTail: {
      raw: 'and the parser still drops the last line',
      sessionKey: 'prev',
      capturedAt: new Date(NOW - tailAgeMs).toISOString(),
      tokenCount: 10,
      counterId: 'c',
    },
    ...extra,
  }
  state = addAnchor(state, { raw: 'Fix the tokenizer first.' }, { now: clock })
  return addAnchor(state, { raw: 'Tests before refactors.' }, { now: clock })
}

describe('resumptionContextFrom', () => {
  test('a fresh tail and the anchors', () => {
    const { context, tailDropped } = resumptionContextFrom(stateWith(HOUR), { now: clock })
    expect(tailDropped).toBeUndefined()
    expect(context).toEqual({
      streamTail: 'and the parser still drops the last line',
      lastSessionKey: 'prev',
      anchors: [
        { raw: 'Fix the tokenizer first.', triggerType: 'manual' },
        { raw: 'Tests before refactors.', triggerType: 'manual' },
      ],
    })
  })

  test.each([
    ['stale', stateWith(25 * HOUR), {}],
    ['cwd-changed', stateWith(HOUR, { cwd: '/a' }), { cwd: '/b' }],
    ['branch-changed', stateWith(HOUR, { branch: 'main' }), { branch: 'feature' }],
    ['same-session', stateWith(HOUR), { sessionId: 'prev' }],
  ] as const)('%s: the tail is dropped, the anchors kept', (reason, state, opts) => {
    const { context, tailDropped } = resumptionContextFrom(state, { now: clock, ...opts })
    expect(tailDropped).toBe(reason)
    expect(context?.streamTail).toBeUndefined()
    expect(context?.anchors).toHaveLength(2)
  })

  test('maxAgeMs is configurable; same cwd/branch keeps the tail', () => {
    const state = stateWith(2 * HOUR, { cwd: '/a', branch: 'main' })
    expect(resumptionContextFrom(state, { now: clock, maxAgeMs: HOUR }).tailDropped).toBe('stale')
    const same = resumptionContextFrom(state, { now: clock, cwd: '/a', branch: 'main' })
    expect(same.context?.streamTail).toBeDefined()
  })

  test('empty state, null state, or stale tail without anchors: nothing to inject', () => {
    expect(resumptionContextFrom(null).context).toBeNull()
    expect(resumptionContextFrom(emptySelfState('x')).context).toBeNull()
    const onlyStale = { ...stateWith(48 * HOUR), verbatimAnchors: [] }
    expect(resumptionContextFrom(onlyStale, { now: clock }).context).toBeNull()
  })

  test('maxAnchors keeps the most recent ones', () => {
    const { context } = resumptionContextFrom(stateWith(HOUR), { now: clock, maxAnchors: 1 })
    expect(context?.anchors.map((a) => a.raw)).toEqual(['Tests before refactors.'])
  })
})

describe('buildResumptionSection', () => {
  const ctx: ResumptionContext = {
    streamTail: 'and the parser still drops the last line',
    anchors: [
      { raw: 'Fix the tokenizer first.', triggerType: 'insight' },
      { raw: 'Tests before refactors.', triggerType: 'decision' },
    ],
  }

  test('wake-up format: tail verbatim, anchors as bullets, closing directive, no summary', () => {
    const text = buildResumptionSection(ctx, { mark: false })
    expect(text).toBe(
      [
        '# Where you left off',
        '',
        '[You were cut off mid-thought. Your own last words:]',
        '',
        '"…and the parser still drops the last line"',
        '',
        '[Phrases you kept from this stretch of work:]',
        '• "Fix the tokenizer first."',
        '• "Tests before refactors."',
        '',
        '[Carry on from there: the thought is still yours to finish.]',
      ].join('\n'),
    )
    expect(text.toLowerCase()).not.toContain('summary')
  })

  test('marked by default with the invisible markers', () => {
    const text = buildResumptionSection(ctx)
    expect(text.startsWith(INJECTED_START)).toBe(true)
    expect(text.endsWith(INJECTED_END)).toBe(true)
  })

  test('nothing to say gives nothing', () => {
    expect(buildResumptionSection(null)).toBe('')
    expect(buildResumptionSection({ anchors: [] })).toBe('')
    expect(buildResumptionSection({ streamTail: '   ', anchors: [] })).toBe('')
    expect(buildResumptionMessage({ anchors: [] })).toBeNull()
  })

  test('budget: oldest anchors go first, then the tail shrinks, and the result fits', () => {
    const counter = createTokenCounter()
    const big: ResumptionContext = {
      streamTail: Array.from({ length: 200 }, (_, i) => `w${i}`).join(' '),
      anchors: Array.from({ length: 5 }, (_, i) => ({
        raw: `anchor number ${i} with some words`,
        triggerType: 't',
      })),
    }
    const full = buildResumptionSection(big, { counter, budgetTokens: 10_000 })
    for (const budget of [400, 200, 120, 60]) {
      const text = buildResumptionSection(big, { counter, budgetTokens: budget })
      expect(counter.count(text)).toBeLessThanOrEqual(budget)
      expect(text.length).toBeGreaterThan(0)
      expect(text.length).toBeLessThan(full.length)
      expect(text).toContain('w199"')
    }
    const mid = buildResumptionSection(big, { counter, budgetTokens: 250 })
    expect(mid).not.toContain('anchor number 0')
    expect(buildResumptionSection(big, { counter, budgetTokens: 5 })).toBe('')
  })

  test('budget with thousands of anchors: the most recent ones that fit, quickly (regression: 27 s)', () => {
    const counter = createTokenCounter()
    const many: ResumptionContext = {
      streamTail: 'the last words',
      anchors: Array.from({ length: 10_000 }, (_, i) => ({ raw: `anchor ${i}`, triggerType: 't' })),
    }
    const started = performance.now()
    const text = buildResumptionSection(many, { counter, budgetTokens: 300 })
    expect(performance.now() - started).toBeLessThan(2000)
    // Reference: the longest run of most recent anchors that still fits, found one by one.
    let kept = 0
    while (
      kept < many.anchors.length &&
      counter.count(
        buildResumptionSection(
          { ...many, anchors: many.anchors.slice(-(kept + 1)) },
          {
            counter,
            budgetTokens: 1_000_000,
          },
        ),
      ) <= 300
    ) {
      kept++
    }
    expect(kept).toBeGreaterThan(0)
    expect(text).toBe(
      buildResumptionSection(
        { ...many, anchors: many.anchors.slice(-kept) },
        { counter, budgetTokens: 1_000_000 },
      ),
    )
    expect(text).toContain('"anchor 9999"')
    expect(text).not.toContain(`"anchor ${9999 - kept}"`)
  })

  test('buildResumptionMessage wraps the same text in a user message', () => {
    const msg = buildResumptionMessage(ctx)
    expect(msg?.role).toBe('user')
    expect(msg?.content).toEqual([{ type: 'text', text: buildResumptionSection(ctx) }])
  })
})
