// Property: over random histories and windows, compaction is bounded and never breaks a request.
import { getModelInfo, sessionMessages, type TokenCounter, textMessage } from '@contextkit/core'
import type { ScriptRequest } from '@contextkit/testkit'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { repairOrphans } from '../budget/history.js'
import { runAgent } from '../run/run-agent.js'
import { applyCompaction } from '../session/apply-compaction.js'
import { maxSteps } from '../stop/stop-conditions.js'
import { collect, emulated, memorySessionStore } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { SUMMARY_SYSTEM_PROMPT } from './summarize.js'

const scenario = fc.record({
  window: fc.integer({ min: 2_000, max: 30_000 }),
  /** Tool result sizes in emulator tokens (⌈chars / 4⌉), as shares of the window. */
  results: fc.array(fc.double({ min: 0.001, max: 0.45, noNaN: true }), {
    minLength: 1,
    maxLength: 14,
  }),
  systemShare: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1.3, noNaN: true })),
  userShare: fc.double({ min: 0, max: 0.3, noNaN: true }),
  at: fc.double({ min: 0.3, max: 1, noNaN: true }),
  keep: fc.integer({ min: 0, max: 30_000 }),
  resume: fc.boolean(),
})

/** What one scenario did. */
interface Outcome {
  stopReason: string
  code: string | undefined
  /** Steps that compacted, and why. */
  compactions: Array<{ step: number; reason: string }>
  refused: number
  /** Refused requests of the resumed run (when the scenario resumes). */
  resumedRefused: number
}

/** Run one scenario through the real loop, SDK and emulator; check the session invariants. */
async function runScenario(
  s: typeof scenario extends fc.Arbitrary<infer T> ? T : never,
  counter: TokenCounter,
): Promise<Outcome> {
  const sizes = s.results.map((r) => Math.max(1, Math.floor(r * s.window)))
  let agentCalls = 0
  const script = (r: ScriptRequest) => {
    if (r.system.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 40))) return 'Short summary.'
    agentCalls++
    const n = agentCalls
    return n <= sizes.length
      ? { text: `step ${n}`, toolUse: { name: 'produce', input: { n } } }
      : 'done'
  }
  const { provider, emulator } = await emulated(script, {
    models: [{ id: 'claude-sonnet-4-6', maxInputTokens: s.window }],
  })
  const produce = defineTool({
    name: 'produce',
    description: 'Produces output',
    input: z.object({ n: z.number().int() }),
    execute: ({ n }) => `r${n} ${'y'.repeat(4 * (sizes[n - 1] ?? 1))}`,
  })
  const store = memorySessionStore()
  const model = { ...getModelInfo('claude-sonnet-4-6'), contextWindow: s.window, maxOutput: 256 }
  const options = {
    provider,
    model,
    system: s.systemShare === 0 ? '' : 'z'.repeat(Math.floor(4 * s.systemShare * s.window)),
    tools: [produce],
    stopWhen: maxSteps(40),
    loopGuard: false as const,
    tokenCounter: counter,
    compaction: { at: s.at, keepRecentTokens: s.keep },
    session: { store, id: 'p' },
  }
  const run = runAgent({
    ...options,
    messages: [textMessage('user', `go ${'u'.repeat(Math.floor(4 * s.userShare * s.window))}`)],
  })
  const events = await collect(run.events)
  const result = await run.result
  const compactions = events.flatMap((e) =>
    e.type === 'compaction-end' ? [{ step: e.step, reason: e.reason }] : [],
  )
  // at most one compaction per step
  const steps = compactions.map((c) => c.step)
  expect(new Set(steps).size).toBe(steps.length)
  // tool pairs whole: in the stored session and in what a resumed run loads
  const entries = store.data.get('p') ?? []
  const all = sessionMessages(entries)
  expect(repairOrphans(all)).toEqual(all)
  const applied = applyCompaction(entries)
  expect(applied.warnings).toEqual([])
  expect(repairOrphans(applied.messages)).toEqual(applied.messages)
  const refused = emulator.requests.filter((r) => r.status !== 200).length
  let resumedRefused = 0
  if (s.resume && result.stopReason === 'end_turn') {
    // the resumed run starts from summary + tail, and the API accepts it (or it is irreducible)
    const before = emulator.requests.length
    const next = await runAgent({ ...options, messages: [textMessage('user', 'again')] }).result
    if (next.stopReason === 'error') expect(next.error?.code).toMatch(/^context_/)
    else expect(next.stopReason).toBe('end_turn')
    resumedRefused = emulator.requests.slice(before).filter((r) => r.status !== 200).length
  }
  return {
    stopReason: result.stopReason,
    code: result.error?.code,
    compactions,
    refused,
    resumedRefused,
  }
}

/** The emulator's rule (⌈characters / 4⌉) with a 10 % margin: an estimate that never undercounts. */
const overcounting: TokenCounter = {
  id: 'emulator-rule-x1.1',
  kind: 'estimate',
  count: (t) => Math.ceil((Math.ceil(t.length / 4) + 3) * 1.1),
}
/** An estimate that counts two thirds of what the API counts: only the overflow path saves it. */
const undercounting: TokenCounter = {
  id: 'two-thirds',
  kind: 'estimate',
  count: (t) => Math.ceil(t.length / 6),
}

describe('compaction bounds (property)', () => {
  test('an estimate that does not undercount: every request fits or the run ends context_irreducible with no call refused', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const o = await runScenario(s, overcounting)
        expect(o.refused).toBe(0)
        expect(o.resumedRefused).toBe(0)
        if (o.stopReason === 'error') expect(o.code).toBe('context_irreducible')
        else expect(o.stopReason).toBe('end_turn')
        expect(o.compactions.every((c) => c.reason === 'threshold')).toBe(true)
      }),
      { numRuns: 30, timeout: 30_000 },
    )
  }, 300_000)

  test('an estimate that undercounts: each refusal is answered by one compaction at most, then the run ends typed', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const o = await runScenario(s, undercounting)
        const overflows = o.compactions.filter((c) => c.reason === 'overflow').length
        // every refused call but the last was followed by an overflow compaction and a retry
        expect(o.refused).toBeLessThanOrEqual(overflows + 1)
        // (budget fitting may refuse first, before any call, when the system prompt leaves no room)
        if (o.stopReason === 'error')
          expect(o.code).toMatch(
            /^(context_irreducible|context_too_long|agent_loop_required_sections)$/,
          )
        else expect(o.stopReason).toBe('end_turn')
      }),
      { numRuns: 20, timeout: 30_000 },
    )
  }, 300_000)
})
