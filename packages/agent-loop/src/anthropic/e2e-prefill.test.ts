// End to end: the prefill middleware, the loop and the Anthropic provider against testkit, with
// the session saved to real files.
import { readFile, writeFile } from 'node:fs/promises'
import {
  type ContextMiddleware,
  getModelInfo,
  memoryTrace,
  type TraceEvent,
  textMessage,
  textOf,
} from '@contextkit/core'
import { AnthropicXmlFormatter, type Formatter, NativeFormatter } from '@contextkit/formatters'
import { PREFILL_TRACE_STAGES, prefill } from '@contextkit/prefill/node'
import { jsonlSessionStore } from '@contextkit/store-files'
import { NO_PREFILL_MESSAGE } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { TRAILING_TURN_FALLBACK } from '../call/trailing-turn.js'
import type { AgentEvent } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, onCleanup, wireText } from '../test-support.js'

const PREFILL = 'Short answer first:'

async function workspace(): Promise<{ dir: string; sessionFile(id: string): Promise<string> }> {
  const { dir, cleanup } = await tempDir('prefill-e2e-')
  onCleanup(cleanup)
  await writeFile(`${dir}/PREFILL.md`, `${PREFILL}\n`)
  return { dir, sessionFile: (id) => readFile(`${dir}/sessions/${id}.jsonl`, 'utf8') }
}

const stages = (events: readonly TraceEvent[]) => events.map((e) => e.stage)
const retries = (events: AgentEvent[]) =>
  events.filter((e): e is Extract<AgentEvent, { type: 'retry' }> => e.type === 'retry')

describe('prefill through the real SDK: sent, continued, stripped, never saved', () => {
  const formats: Array<[string, Formatter]> = [
    ['native', new NativeFormatter()],
    ['XML transcript', new AnthropicXmlFormatter()],
  ]
  for (const [name, formatter] of formats) {
    test(`claude-haiku-4-5, ${name}`, async () => {
      const ws = await workspace()
      const { bodies, provider } = await emulated([
        // the model sees its turn opened with the prefill and continues it
        (req) => (req.prefill?.endsWith(PREFILL) ? ' yes, it is 4.' : 'no prefill seen'),
      ])
      const trace = memoryTrace()
      const run = runAgent({
        provider,
        model: 'claude-haiku-4-5',
        formatter,
        workspace: ws.dir,
        middleware: [prefill()],
        messages: [textMessage('user', 'Is 2+2 equal to 4?')],
        session: { store: jsonlSessionStore(`${ws.dir}/sessions`), id: 'chat' },
        trace,
      })
      const events = await collect(run.events)
      const result = await run.result
      expect(result.error).toBeUndefined()
      // sent: the request ends in the model's own turn, holding the prefill
      const last = bodies()[0]?.messages.at(-1)
      expect(last?.role).toBe('assistant')
      expect(wireText(last).trimEnd().endsWith(PREFILL)).toBe(true)
      // continued: within the run the reply is the prefill plus its continuation
      const streamed = events
        .filter((e) => e.type === 'text-delta')
        .map((e) => (e.type === 'text-delta' ? e.text : ''))
        .join('')
      expect(streamed.trim()).toBe('yes, it is 4.')
      // stripped: what the run returns and saves has no prefill
      expect(result.text).toBe('yes, it is 4.')
      expect(stages(trace.events)).toContain(PREFILL_TRACE_STAGES.stripped)
      const file = await ws.sessionFile('chat')
      expect(file).not.toContain(PREFILL)
      expect(file).toContain('yes, it is 4.')
      const lines = file
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string })
      expect(lines.map((l) => l.type)).toEqual(['session', 'message', 'message'])
    })
  }

  test('claude-sonnet-4-6 (the table knows it takes no prefill): an instruction instead, no 400 sent', async () => {
    const ws = await workspace()
    const { bodies, emulator, provider } = await emulated([`${PREFILL} four.`])
    const trace = memoryTrace()
    const result = await runAgent({
      provider,
      model: 'claude-sonnet-4-6',
      formatter: new AnthropicXmlFormatter(),
      workspace: ws.dir,
      middleware: [prefill()],
      messages: [textMessage('user', '2+2?')],
      session: { store: jsonlSessionStore(`${ws.dir}/sessions`), id: 'chat' },
      trace,
    }).result
    expect(result.error).toBeUndefined()
    expect(emulator.requests.map((r) => r.status)).toEqual([200])
    expect(bodies()[0]?.messages.at(-1)?.role).toBe('user')
    expect(wireText(bodies()[0]?.messages.at(-1))).toContain(PREFILL)
    const injected = trace.events.find((e) => e.stage === PREFILL_TRACE_STAGES.injected)
    expect(injected?.data).toMatchObject({ mode: 'instruct' })
    expect(result.text).toBe('four.')
    expect(await ws.sessionFile('chat')).not.toContain(PREFILL)
  })

  test('claude-sonnet-4-6 with a stale table (says it takes prefill): the 400 is recovered from, never seen', async () => {
    const ws = await workspace()
    const { bodies, emulator, provider } = await emulated([`${PREFILL} four.`])
    const stale = { ...getModelInfo('claude-sonnet-4-6'), supportsPrefill: true }
    const trace = memoryTrace()
    const run = runAgent({
      provider,
      model: stale,
      formatter: new AnthropicXmlFormatter(),
      workspace: ws.dir,
      middleware: [prefill()],
      messages: [textMessage('user', '2+2?')],
      session: { store: jsonlSessionStore(`${ws.dir}/sessions`), id: 'chat' },
      trace,
    })
    const events = await collect(run.events)
    const result = await run.result
    // the emulator answered the prefilled transcript with the API's 400...
    expect(emulator.requests.map((r) => r.status)).toEqual([400, 200])
    expect(JSON.stringify(emulator.requests[0]?.body)).toContain(PREFILL)
    // ...the prefill middleware's recover took it, and the loop switched format
    expect(bodies()[1]?.messages.at(-1)?.role).toBe('user')
    expect(bodies()[1]?.tools).toBeUndefined()
    expect(retries(events)).toMatchObject([{ source: 'middleware', by: 'prefill', step: 1 }])
    const recovered = trace.events.find((e) => e.stage === AGENT_TRACE_STAGES.recovered)
    expect(recovered?.data).toMatchObject({ by: 'prefill', status: 400 })
    expect(stages(trace.events)).toContain(PREFILL_TRACE_STAGES.fallback)
    const request2 = trace.events.filter((e) => e.stage === AGENT_TRACE_STAGES.request)[1]
    expect(request2?.data).toMatchObject({ formatter: 'native', endsWith: 'user' })
    // the caller never sees the 400
    expect(result.error).toBeUndefined()
    expect(result.stopReason).toBe('end_turn')
    expect(result.warnings.map((w) => w.message).join()).not.toContain(NO_PREFILL_MESSAGE)
    expect(result.text).toBe('four.')
    expect(await ws.sessionFile('chat')).not.toContain(PREFILL)
  })
})

describe('prefill while thinking is on', () => {
  test('claude-haiku-4-5 with API thinking: the prefill goes as an instruction, the request ends on the user', async () => {
    const ws = await workspace()
    const { bodies, emulator, provider } = await emulated([
      { thinking: 'Simple sum.', text: `${PREFILL} 4.` },
    ])
    const trace = memoryTrace()
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      workspace: ws.dir,
      middleware: [prefill()],
      thinking: { enabled: true, budgetTokens: 2000 },
      messages: [textMessage('user', '2+2?')],
      session: { store: jsonlSessionStore(`${ws.dir}/sessions`), id: 'chat' },
      trace,
    }).result
    expect(result.error).toBeUndefined()
    expect(emulator.requests.map((r) => r.status)).toEqual([200])
    expect(bodies()[0]?.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 })
    expect(bodies()[0]?.messages.at(-1)?.role).toBe('user')
    const injected = trace.events.find((e) => e.stage === PREFILL_TRACE_STAGES.injected)
    expect(injected?.data).toMatchObject({ mode: 'instruct' })
    expect(result.text).toBe('4.')
    expect(await ws.sessionFile('chat')).not.toContain(PREFILL)
  })

  test('stale claude-sonnet-4-6 + the XML transcript + thinking: the loop falls back to a format without the trailing turn', async () => {
    const ws = await workspace()
    const { bodies, emulator, provider } = await emulated([`${PREFILL} four.`])
    const stale = { ...getModelInfo('claude-sonnet-4-6'), supportsPrefill: true }
    const trace = memoryTrace()
    const run = runAgent({
      provider,
      model: stale,
      formatter: new AnthropicXmlFormatter(),
      workspace: ws.dir,
      middleware: [prefill()],
      thinking: { enabled: true },
      messages: [textMessage('user', '2+2?')],
      trace,
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(emulator.requests.map((r) => r.status)).toEqual([400, 200])
    // the prefill middleware had already made its prefill an instruction (thinking), so it had
    // nothing to recover; the loop's own fallback switched to a format ending on the user
    expect(retries(events)).toMatchObject([{ source: 'middleware', by: TRAILING_TURN_FALLBACK }])
    const recovered = trace.events.find((e) => e.stage === AGENT_TRACE_STAGES.recovered)
    expect(recovered?.data).toMatchObject({
      by: TRAILING_TURN_FALLBACK,
      status: 400,
      errorType: 'invalid_request_error',
    })
    expect(bodies()[1]?.messages.at(-1)?.role).toBe('user')
    // native format on an adaptive model: API thinking, adaptive
    expect(bodies()[1]?.thinking).toEqual({ type: 'adaptive' })
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('four.')
  })

  test('a bare turn.prefill with API thinking on: the API refuses it, the loop retries without it', async () => {
    // a middleware (not the prefill package) that sets a prefill and knows nothing of thinking
    const naive: ContextMiddleware = {
      name: 'naive-prefill',
      prepare: (turn) => ({ ...turn, prefill: PREFILL }),
    }
    const { bodies, emulator, provider } = await emulated([{ thinking: 'Sum.', text: 'Four.' }])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      middleware: [naive],
      thinking: { enabled: true, budgetTokens: 1500 },
      messages: [textMessage('user', '2+2?')],
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(emulator.requests.map((r) => r.status)).toEqual([400, 200])
    expect(bodies()[0]?.messages.at(-1)?.role).toBe('assistant')
    expect(bodies()[1]?.messages.at(-1)?.role).toBe('user')
    expect(retries(events)).toMatchObject([{ by: TRAILING_TURN_FALLBACK }])
    expect(result.warnings.map((w) => w.code)).toContain(AGENT_LOOP_WARNINGS.trailingTurnDropped)
    expect(result.error).toBeUndefined()
    expect(textOf(result.messages[0]!)).toBe('Four.')
  })

  test('a 400 that is not about the prefill still reaches the caller (after one fallback try)', async () => {
    const { emulator, provider } = await emulated(['never'])
    const huge = { ...getModelInfo('claude-haiku-4-5'), maxOutput: 10_000_000 }
    const naive: ContextMiddleware = {
      name: 'naive-prefill',
      prepare: (turn) => ({ ...turn, prefill: PREFILL }),
    }
    const result = await runAgent({
      provider,
      model: huge,
      maxTokens: 10_000_000,
      middleware: [naive],
      messages: [textMessage('user', 'Hi')],
    }).result
    expect(emulator.requests.map((r) => r.status)).toEqual([400, 400])
    expect(result.stopReason).toBe('error')
    expect(result.error).toMatchObject({ status: 400, errorType: 'invalid_request_error' })
  })
})
