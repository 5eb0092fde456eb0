import {
  type ContextMiddleware,
  createTokenCounter,
  type Section,
  SectionListCheck,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { scriptedProvider } from '../testing/scripted-provider.js'
import { defineTool } from '../tools/define-tool.js'
import { RunTokenCounter } from './budget.js'

// The loop checks each section object once per run (the turn's sections come back on every
// model call); these tests hold that to "every new object is checked".
const valid = (id: string): Section => ({ id, text: `text of ${id}`, priority: 1, cache: 'stable' })
const invalid = (id: string) => ({ id, text: 'x', priority: 'high', cache: 'stable' }) as unknown

describe('RunTokenCounter.checkSections', () => {
  test('throws exactly when a list holds a bad section, whatever was checked before', () => {
    const pool = fc
      .array(fc.boolean(), { minLength: 1, maxLength: 6 })
      .map((oks) => oks.map((ok, i) => (ok ? valid(`s${i}`) : invalid(`s${i}`))))
    fc.assert(
      fc.property(
        pool.chain((objects) =>
          fc.tuple(
            fc.constant(objects),
            fc.array(fc.subarray(objects), { minLength: 1, maxLength: 8 }),
          ),
        ),
        ([, lists]) => {
          const counter = new RunTokenCounter(createTokenCounter())
          for (const list of lists) {
            const bad = !SectionListCheck.safeParse(list).success
            const run = () => counter.checkSections(list as Section[])
            if (bad) expect(run).toThrow(ValidationError)
            else expect(run).not.toThrow()
          }
        },
      ),
    )
  })

  test('a section added after the first model call is still checked', async () => {
    // prepareStep hands the loop a new, bad section object on the second call only
    const late: ContextMiddleware = {
      name: 'late',
      prepare: (turn) => ({ ...turn, system: [...turn.system, valid('early')] }),
      prepareStep: (turn, _run, info) =>
        info.step >= 2 ? { ...turn, system: [...turn.system, invalid('late') as Section] } : turn,
    }
    const provider = scriptedProvider(
      [{ text: 'Reading.', toolCalls: [{ name: 'echo', input: { x: 'a' } }] }, 'done'],
      { record: true },
    )
    const echo = defineTool({
      name: 'echo',
      description: 'Echo x.',
      input: z.object({ x: z.string() }),
      execute: ({ x }) => x,
    })
    const outcome = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'hi')],
      tools: [echo],
      middleware: [late],
    }).result.then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    )
    // the first call went out with the checked sections; the second was refused
    expect(provider.requests.length).toBe(1)
    const error = outcome.error ?? outcome.result?.error
    expect(ValidationError.isInstance(error)).toBe(true)
    expect(String((error as Error).message)).toContain('fitSections sections')
  })
})
