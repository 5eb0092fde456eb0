import { textMessage } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, type WireBody } from '../test-support.js'
import { defineTool } from './define-tool.js'

type Block = Record<string, unknown> & { type: string }

/** The tool_result blocks of the last user message of a request. */
function resultsOf(body: WireBody | undefined): Block[] {
  const last = body?.messages.at(-1)
  return Array.isArray(last?.content) ? last.content.filter((b) => b.type === 'tool_result') : []
}

function resultText(block: Block | undefined): string {
  const content = block?.content as Array<{ text?: string }> | undefined
  return (content ?? []).map((c) => c.text ?? '').join('')
}

const add = defineTool({
  name: 'add',
  description: 'Add two integers',
  input: z.object({ a: z.number().int(), b: z.number().int() }),
  execute: ({ a, b }) => ({ sum: a + b }),
})

describe('tool calls become results the model sees; the run goes on', () => {
  test('invalid input, unknown tool, a throw and a timeout are error results; a good call is not', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'Always fails',
      input: z.object({}),
      execute: () => {
        throw new Error('disk on fire')
      },
    })
    const slow = defineTool({
      name: 'slow',
      description: 'Never answers in time',
      input: z.object({}),
      timeoutMs: 30,
      execute: (_input, { signal }) =>
        new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))),
    })
    const { provider, bodies } = await emulated([
      {
        toolUse: [
          { name: 'add', input: { a: 1, b: 'two' } },
          { name: 'nope', input: {} },
          { name: 'boom', input: {} },
          { name: 'slow', input: {} },
          { name: 'add', input: { a: 2, b: 3 } },
        ],
      },
      'Done.',
    ])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'go')],
      tools: [add, boom, slow],
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    const results = resultsOf(bodies()[1])
    expect(results.map((r) => r.is_error ?? false)).toEqual([true, true, true, true, false])
    expect(resultText(results[0])).toMatch(/^Invalid input for tool "add": b: /)
    expect(resultText(results[1])).toBe('Unknown tool "nope". Available tools: add, boom, slow.')
    expect(resultText(results[2])).toBe('Tool "boom" failed: disk on fire')
    expect(resultText(results[3])).toBe('Tool "slow" timed out after 30 ms.')
    expect(resultText(results[4])).toBe('{"sum":5}')
    const codes = events
      .filter((e): e is Extract<AgentEvent, { type: 'tool-result' }> => e.type === 'tool-result')
      .map((e) => e.error?.code ?? 'ok')
    expect(codes.sort()).toEqual(
      [
        'agent_loop_tool_input',
        'agent_loop_unknown_tool',
        'agent_loop_tool_failed',
        'agent_loop_tool_timeout',
        'ok',
      ].sort(),
    )
  })

  test('calls of one reply run in parallel by default; results come back in call order', async () => {
    let running = 0
    let peak = 0
    const order: string[] = []
    // Parallel: no call may finish before all three started (a deadlock if they ran one by
    // one); then they finish in the order second, third, first — whatever the machine's load.
    const finishOrder = ['second', 'third', 'first']
    let releaseAll: () => void = () => {}
    const allStarted = new Promise<void>((resolve) => {
      releaseAll = resolve
    })
    let parallelMode = true
    const wait = defineTool({
      name: 'wait',
      description: 'Wait a while',
      input: z.object({ id: z.string(), ms: z.number() }),
      execute: async ({ id, ms }) => {
        running++
        peak = Math.max(peak, running)
        if (parallelMode) {
          if (running === 3) releaseAll()
          await allStarted
          while (order.length !== finishOrder.indexOf(id)) {
            await new Promise((r) => setImmediate(r))
          }
        } else {
          await new Promise((r) => setTimeout(r, ms))
        }
        running--
        order.push(id)
        return id
      },
    })
    const script = [
      {
        toolUse: [
          { name: 'wait', input: { id: 'first', ms: 60 } },
          { name: 'wait', input: { id: 'second', ms: 5 } },
          { name: 'wait', input: { id: 'third', ms: 30 } },
        ],
      },
      'ok',
    ]
    const parallel = await emulated(script)
    const result = await runAgent({
      provider: parallel.provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'go')],
      tools: [wait],
    }).result
    expect(result.stopReason).toBe('end_turn')
    expect(peak).toBe(3)
    expect(order).toEqual(['second', 'third', 'first'])
    expect(resultsOf(parallel.bodies()[1]).map(resultText)).toEqual(['first', 'second', 'third'])

    peak = 0
    order.length = 0
    parallelMode = false
    const serial = await emulated(script)
    await runAgent({
      provider: serial.provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'go')],
      tools: [wait],
      toolConcurrency: 1,
    }).result
    expect(peak).toBe(1)
    expect(order).toEqual(['first', 'second', 'third'])
  })

  test('execute may return content blocks or an object; nothing returned is an empty result', async () => {
    const shapes = defineTool({
      name: 'shapes',
      description: 'Return various shapes',
      input: z.object({ kind: z.enum(['blocks', 'object', 'nothing']) }),
      execute: ({ kind }) =>
        kind === 'blocks'
          ? [{ type: 'text' as const, text: 'as blocks' }]
          : kind === 'object'
            ? { ok: true, n: 2 }
            : undefined,
    })
    const { provider, bodies } = await emulated([
      {
        toolUse: [
          { name: 'shapes', input: { kind: 'blocks' } },
          { name: 'shapes', input: { kind: 'object' } },
          { name: 'shapes', input: { kind: 'nothing' } },
        ],
      },
      'ok',
    ])
    await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'go')],
      tools: [shapes],
    }).result
    expect(resultsOf(bodies()[1]).map(resultText)).toEqual(['as blocks', '{"ok":true,"n":2}', ''])
  })

  test('the abort signal reaches every running tool and the run ends at once', async () => {
    const seen: string[] = []
    const hang = defineTool({
      name: 'hang',
      description: 'Runs until aborted (and ignores it when asked to)',
      input: z.object({ id: z.string(), ignore: z.boolean() }),
      execute: ({ id, ignore }, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            seen.push(id)
            if (!ignore) resolve('stopped')
          })
        }),
    })
    const { provider } = await emulated([
      {
        toolUse: [
          { name: 'hang', input: { id: 'a', ignore: false } },
          { name: 'hang', input: { id: 'b', ignore: true } },
        ],
      },
    ])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'go')],
      tools: [hang],
    })
    for await (const e of run.events) {
      if (e.type === 'tool-call' && e.call.input.id === 'b') break
    }
    await new Promise((r) => setTimeout(r, 20))
    const t0 = performance.now()
    run.abort()
    const result = await run.result
    expect(performance.now() - t0).toBeLessThan(100)
    expect(result.stopReason).toBe('aborted')
    expect(seen.sort()).toEqual(['a', 'b'])
    const results = result.messages[1]?.content ?? []
    expect(results.map((b) => (b.type === 'tool_result' ? b.isError : undefined))).toEqual([
      true,
      true,
    ])
  })
})

describe('many calls in one reply', () => {
  test('twelve parallel calls all run and leave no listener warning on the run signal', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error): void => {
      warnings.push(w.name)
    }
    process.on('warning', onWarning)
    try {
      const echo = defineTool({
        name: 'echo',
        description: 'Echo an id',
        input: z.object({ id: z.number() }),
        execute: async ({ id }) => {
          await new Promise((r) => setTimeout(r, 5))
          return `#${id}`
        },
      })
      const calls = Array.from({ length: 12 }, (_, id) => ({ name: 'echo', input: { id } }))
      const run = await emulated([{ toolUse: calls }, 'done'])
      const result = await runAgent({
        provider: run.provider,
        model: 'claude-haiku-4-5',
        messages: [textMessage('user', 'go')],
        tools: [echo],
      }).result
      expect(result.stopReason).toBe('end_turn')
      expect(resultsOf(run.bodies()[1]).map(resultText)).toEqual(
        Array.from({ length: 12 }, (_, id) => `#${id}`),
      )
      await new Promise((r) => setImmediate(r))
      expect(warnings).not.toContain('MaxListenersExceededWarning')
    } finally {
      process.off('warning', onWarning)
    }
  })
})
