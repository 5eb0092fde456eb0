// Property: over random histories and windows, compaction is bounded and never breaks a request.
import { getModelInfo, sessionMessages, textMessage } from '@contextkit/core'
import type { ScriptRequest } from '@contextkit/testkit'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../define-tool.js'
import { repairOrphans } from '../history.js'
import { runAgent } from '../run-agent.js'
import { applyCompaction } from '../session/apply-compaction.js'
import { maxSteps } from '../stop-conditions.js'
import { collect, emulated, memorySessionStore } from '../test-support.js'
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

describe('compaction bounds (property)', () => {
  test('≤ 1 compaction per step; every request fits or the run ends context_irreducible; pairs whole', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
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
        const model = {
          ...getModelInfo('claude-sonnet-4-6'),
          contextWindow: s.window,
          maxOutput: 256,
        }
        const options = {
          provider,
          model,
          system: s.systemShare === 0 ? '' : 'z'.repeat(Math.floor(4 * s.systemShare * s.window)),
          tools: [produce],
          stopWhen: maxSteps(40),
          loopGuard: false as const,
          compaction: { at: s.at, keepRecentTokens: s.keep },
          session: { store, id: 'p' },
        }
        const run = runAgent({
          ...options,
          messages: [
            textMessage('user', `go ${'u'.repeat(Math.floor(4 * s.userShare * s.window))}`),
          ],
        })
        const events = await collect(run.events)
        const result = await run.result
        const steps = events.flatMap((e) => (e.type === 'compaction-end' ? [e.step] : []))
        expect(new Set(steps).size).toBe(steps.length)
        const refused = emulator.requests.filter((r) => r.status !== 200)
        if (result.stopReason === 'error') {
          expect(result.error?.code).toBe('context_irreducible')
          // at most one attempt: never more than one refused request
          expect(refused.length).toBeLessThanOrEqual(1)
        } else {
          expect(result.stopReason).toBe('end_turn')
          expect(refused).toEqual([])
        }
        const entries = store.data.get('p') ?? []
        const all = sessionMessages(entries)
        expect(repairOrphans(all)).toEqual(all)
        const applied = applyCompaction(entries)
        expect(applied.warnings).toEqual([])
        expect(repairOrphans(applied.messages)).toEqual(applied.messages)
        if (s.resume && result.stopReason === 'end_turn') {
          // the resumed run starts from summary + tail, and the API accepts it as it is
          const before = emulator.requests.length
          const next = await runAgent({ ...options, messages: [textMessage('user', 'again')] })
            .result
          expect(['end_turn', 'error']).toContain(next.stopReason)
          if (next.stopReason === 'error') expect(next.error?.code).toBe('context_irreducible')
          else expect(emulator.requests.slice(before).filter((r) => r.status !== 200)).toEqual([])
        }
      }),
      { numRuns: 30, timeout: 30_000 },
    )
  }, 300_000)
})
