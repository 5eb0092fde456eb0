import {
  type AssistantMessage,
  type ContextMiddleware,
  type FinalizeInfo,
  getModelInfo,
  getRunState,
  memoryTrace,
  setRunState,
  textMessage,
  textOf,
} from '@contextkit/core'
import { AnthropicXmlFormatter } from '@contextkit/formatters'
import { NO_PREFILL_MESSAGE } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { ProviderError } from '../provider/errors.js'
import { collect, emulated, memorySessionStore, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { runAgent } from './run-agent.js'

const PREFILL = 'Let me look.'

/**
 * A prefill middleware written against core's contract alone: a native prefill in `prepare`,
 * notes in run state, stripped in `finalize` of step 1, and a `recover` that drops it when the
 * provider rejects it.
 */
function testPrefill(
  log: Array<[string, FinalizeInfo | undefined, AssistantMessage['stopReason']]>,
): ContextMiddleware {
  return {
    name: 'test-prefill',
    prepare(turn, run) {
      setRunState(run, 'test-prefill', { text: PREFILL })
      return { ...turn, prefill: PREFILL }
    },
    finalize(reply, _turn, run, info) {
      log.push([textOf(reply), info, reply.stopReason])
      const note = getRunState(run, 'test-prefill') as { text: string } | undefined
      if (!note || info?.step !== 1) return reply
      const first = reply.content[0]
      if (first?.type !== 'text' || !first.text.startsWith(note.text)) return reply
      const rest = first.text.slice(note.text.length).trimStart()
      return {
        ...reply,
        content: [
          ...(rest ? [{ type: 'text' as const, text: rest }] : []),
          ...reply.content.slice(1),
        ],
      }
    },
    recover(error, turn) {
      if (!(ProviderError.isInstance(error) && error.status === 400) || turn.prefill === undefined)
        return undefined
      const { prefill: _p, ...rest } = turn
      return { ...rest, model: { ...turn.model, supportsPrefill: false } }
    },
  }
}

const look = defineTool({
  name: 'look',
  description: 'Look',
  input: z.object({}),
  execute: () => 'seen',
})

describe('middleware and the loop', () => {
  test('every reply is finalized with { final, step }; the prefill goes with the first call only', async () => {
    const log: Parameters<typeof testPrefill>[0] = []
    const store = memorySessionStore()
    const { provider, bodies } = await emulated([
      { text: `${PREFILL} I will use the tool.`, toolUse: { name: 'look', input: {} } },
      'It is seen.',
    ])
    const trace = memoryTrace()
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Look around.')],
      tools: [look],
      middleware: [testPrefill(log)],
      session: { store, id: 'p1' },
      trace,
    }).result
    const [first, second] = bodies()
    expect(first?.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: PREFILL }],
    })
    expect(second?.messages.at(-1)?.role).toBe('user')
    // within the run the model sees its own words whole, prefill included
    expect(wireText(second?.messages[1])).toBe(`${PREFILL} I will use the tool.`)
    // every reply reached finalize, the first one with the prefill in front (one generic rule)
    expect(log.map(([text, info]) => [text, info])).toEqual([
      [`${PREFILL} I will use the tool.`, { final: false, step: 1 }],
      ['It is seen.', { final: true, step: 2 }],
    ])
    // what is saved and returned is finalized
    expect(textOf(result.messages[0]!)).toBe('I will use the tool.')
    const saved = store.data.get('p1')!.flatMap((e) => (e.type === 'message' ? [e.message] : []))
    expect(JSON.stringify(saved)).not.toContain(PREFILL)
    expect(trace.byStage(AGENT_TRACE_STAGES.finalized).map((e) => e.data.final)).toEqual([
      false,
      true,
    ])
  })

  test('recover: a provider 400 is offered to middleware, the same call is retried with its turn', async () => {
    const log: Parameters<typeof testPrefill>[0] = []
    // our table says haiku takes a prefill; this emulator's haiku does not
    const { provider, emulator, bodies } = await emulated(['Fine.'], {
      models: [{ id: 'claude-haiku-4-5', supportsPrefill: false }],
    })
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Hi')],
      formatter: new AnthropicXmlFormatter({ toolMode: 'native' }),
      middleware: [testPrefill(log)],
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(emulator.requests.map((r) => r.status)).toEqual([400, 200])
    expect(bodies()[1]?.messages.at(-1)?.role).toBe('user')
    const retry = events.find(
      (e): e is Extract<AgentEvent, { type: 'retry' }> => e.type === 'retry',
    )
    expect(retry).toMatchObject({ source: 'middleware', by: 'test-prefill', step: 1 })
    expect(retry?.error).toMatchObject({ status: 400, errorType: 'invalid_request_error' })
    const rejected = retry?.error as ProviderError | undefined
    expect(JSON.stringify(rejected?.body)).toContain(NO_PREFILL_MESSAGE)
    expect(result.steps).toBe(1)
    expect(result.text).toBe('Fine.')
  })

  test('an error nobody recovers from: finalized (stopReason error), result error-stopped, only the user message saved', async () => {
    const log: Parameters<typeof testPrefill>[0] = []
    const store = memorySessionStore()
    const { provider } = await emulated([
      { fault: { kind: 'http', status: 500, shouldRetry: false } },
    ])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Hi')],
      middleware: [testPrefill(log)],
      session: { store, id: 'e1' },
    })
    const result = await run.result
    expect(result.stopReason).toBe('error')
    expect(ProviderError.isInstance(result.error)).toBe(true)
    expect(result.error).toMatchObject({ status: 500, code: 'agent_loop_provider_error' })
    expect((result.error as ProviderError).requestId).toMatch(/^req_/)
    expect(log.map(([, info, stop]) => [info, stop])).toEqual([[{ final: true, step: 1 }, 'error']])
    // only the user's message is saved (before the call); the failed reply never is
    expect(store.data.get('e1')?.map((e) => e.type)).toEqual(['session', 'message'])
    const events = await collect(run.events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', result: { stopReason: 'error' } })
  })

  test('an aborted reply is finalized too (stopReason aborted), with what arrived of it', async () => {
    const log: Parameters<typeof testPrefill>[0] = []
    const { provider } = await emulated([
      {
        text: `${PREFILL} A slow answer, two characters at a time.`,
        transport: { chunkDelayMs: 30, deltaChars: 2 },
      },
    ])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Hi')],
      middleware: [testPrefill(log)],
    })
    for await (const e of run.events) if (e.type === 'text-delta') break
    run.abort()
    const result = await run.result
    expect(result.stopReason).toBe('aborted')
    expect(log).toHaveLength(1)
    const [text, info, stop] = log[0]!
    expect(info).toEqual({ final: true, step: 1 })
    expect(stop).toBe('aborted')
    // the prefill rule applied to what arrived, so finalize could strip it
    expect(text.startsWith(PREFILL)).toBe(true)
  })

  test('a turn the formatter cannot render ends the run with a typed error', async () => {
    const { provider, bodies } = await emulated(['never'])
    const forced: ContextMiddleware = {
      name: 'forced',
      prepare: (turn) => ({ ...turn, prefill: 'Sure' }),
    }
    const result = await runAgent({
      provider,
      model: 'claude-sonnet-4-6',
      messages: [textMessage('user', 'Hi')],
      middleware: [forced],
    }).result
    expect(result.stopReason).toBe('error')
    expect(result.error?.code).toBe('agent_loop_request_build')
    expect(result.error?.message).toContain('prefill')
    expect(bodies()).toEqual([])
  })

  test('middleware warnings and a recoverable middleware failure become warning events', async () => {
    const { provider } = await emulated(['ok'])
    const flaky: ContextMiddleware = {
      name: 'flaky',
      prepare(turn, run) {
        run.trace.record('warning', { source: 'flaky', code: 'flaky_off', message: 'turned off' })
        return turn
      },
    }
    const result = await runAgent({
      provider,
      model: getModelInfo('claude-haiku-4-5'),
      messages: [textMessage('user', 'Hi')],
      middleware: [flaky],
    }).result
    expect(result.warnings).toEqual([{ source: 'flaky', code: 'flaky_off', message: 'turned off' }])
  })
})
