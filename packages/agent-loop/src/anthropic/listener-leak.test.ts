// A run of many calls through the real SDK leaves nothing behind: every provider stream is
// closed (its generator's `finally` runs) and no abort listener stays on the run's signal, so
// Node never warns about listeners however long the run.
import { getEventListeners } from 'node:events'
import { textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { ModelProvider, ProviderEvent } from '../provider/contract.js'
import { runAgent } from '../run/run-agent.js'
import { maxSteps } from '../stop/stop-conditions.js'
import { emulated } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

const CALLS = 50

describe('no leak per model call', () => {
  test(`a ${CALLS}-call run: every stream closed, 0 listeners left, no warning`, async () => {
    const warnings: string[] = []
    const onWarning = (w: Error): void => {
      warnings.push(w.name)
    }
    process.on('warning', onWarning)
    const step = (i: number) => ({ text: `Step ${i}.`, toolUse: { name: 'tick', input: { i } } })
    const script = [...Array.from({ length: CALLS - 1 }, (_, i) => step(i)), 'Done.']
    const { provider: real } = await emulated(script)
    const signals = new Set<AbortSignal>()
    let closed = 0
    const provider: ModelProvider = {
      name: real.name,
      async *stream(request, options): AsyncGenerator<ProviderEvent> {
        signals.add(options.signal)
        try {
          yield* real.stream(request, options)
        } finally {
          closed++
        }
      },
    }
    const tick = defineTool({
      name: 'tick',
      description: 'Counts',
      input: z.object({ i: z.number() }),
      execute: ({ i }) => `ok ${i}`,
    })
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: [tick],
      stopWhen: maxSteps(CALLS + 5),
      loopGuard: false,
      messages: [textMessage('user', 'Count.')],
    }).result
    // let any pending return() settle
    await new Promise((resolve) => setImmediate(resolve))
    process.off('warning', onWarning)
    expect(result.error).toBeUndefined()
    expect(result.steps).toBe(CALLS)
    expect(closed).toBe(CALLS)
    expect(signals.size).toBe(1)
    for (const signal of signals) expect(getEventListeners(signal, 'abort')).toHaveLength(0)
    expect(warnings).not.toContain('MaxListenersExceededWarning')
  }, 60_000)
})
