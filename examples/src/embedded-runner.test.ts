import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { AGENT_TRACE_STAGES } from '@contextkit/agent-loop'
import { memoryTrace, sessionMessages } from '@contextkit/core'
import { SessionEntrySchema } from '@contextkit/core/schemas'
import { defaultInstruction } from '@contextkit/prefill'
import { PREFILL_TRACE_STAGES } from '@contextkit/prefill/node'
import { loadSelfState, RESUMPTION_TRACE_STAGES } from '@contextkit/resumption/node'
import {
  type AnthropicEmulator,
  type EmulatorModel,
  NO_PREFILL_MESSAGE,
  type Script,
  startAnthropicEmulator,
} from '@contextkit/testkit'
import { afterEach, describe, expect, test } from 'vitest'
import { DEMO_FINAL_ANSWER, demoScript } from './demo-script.js'
import {
  createDemoWorkspace,
  DEMO_CONTEXT_FILE,
  DEMO_PREFILL,
  DEMO_SOURCE,
  type DemoWorkspace,
} from './demo-workspace.js'
import { type EmbeddedTurnOptions, runEmbeddedTurn } from './embedded-runner.js'
import { MIDDLEWARE_STAGES } from './turn-steps.js'

interface Wire {
  role: string
  content: Array<{ type: string; text?: string; content?: Array<{ text?: string }> }>
}
interface Body {
  system?: Array<{ text: string; cache_control?: unknown }>
  messages: Wire[]
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup(script: Script = demoScript, models?: EmulatorModel[]) {
  const emulator: AnthropicEmulator = await startAnthropicEmulator({
    script,
    ...(models ? { models } : {}),
  })
  cleanups.push(() => emulator.close())
  const ws: DemoWorkspace = await createDemoWorkspace()
  cleanups.push(() => ws.cleanup())
  const client = new Anthropic({ apiKey: 'test', baseURL: emulator.url, maxRetries: 0 })
  const turn = (extra: Partial<EmbeddedTurnOptions> = {}) =>
    runEmbeddedTurn({
      client,
      model: 'claude-haiku-4-5',
      workspace: ws.dir,
      userText: 'What does src/parse-orders.ts do?',
      sessionId: 'one',
      contextFile: DEMO_CONTEXT_FILE,
      ...extra,
    })
  const bodies = () =>
    emulator.requests.filter((r) => r.path === '/v1/messages').map((r) => r.body as Body)
  return { emulator, ws, turn, bodies }
}

const textOfWire = (m: Wire | undefined): string =>
  (m?.content ?? []).map((b) => b.text ?? '').join('')
const systemOf = (b: Body): string => (b.system ?? []).map((s) => s.text).join('\n\n')

async function savedLines(path: string) {
  const text = await readFile(path, 'utf8')
  const entries = text
    .trim()
    .split('\n')
    .map((l) => SessionEntrySchema.parse(JSON.parse(l)))
  expect(entries[0]?.type).toBe('session')
  return { text, messages: sessionMessages(entries) }
}

describe('runEmbeddedTurn with claude-haiku-4-5 (native prefill, transcript format)', () => {
  test('bootstrap in the system prompt, hint in the user turn, prefill last, tool result fed back', async () => {
    const { turn, bodies } = await setup()
    const result = await turn()
    const [first, second] = bodies()
    expect(bodies()).toHaveLength(2)
    // step 2–3: bootstrap files in the cached, stable system block
    expect(first!.system?.[0]?.text).toContain('Run `pnpm test` before you commit.')
    expect(first!.system?.[0]?.text).toContain('You are Ada')
    expect(first!.system?.[0]?.cache_control).toEqual({ type: 'ephemeral' })
    // step 4: the context hint is part of the user's turn of the transcript
    const transcript = textOfWire(first!.messages.at(-1))
    const userTurn = transcript.slice(transcript.indexOf('User:'), transcript.indexOf('Assistant:'))
    expect(userTurn).toContain('What does src/parse-orders.ts do?')
    expect(userTurn).toContain(`[Context available in file ${DEMO_CONTEXT_FILE}]`)
    expect(userTurn).toContain('Format: NDJSON')
    // step 6–7: the request ends with the prefill as an assistant message
    expect(first!.messages.at(-1)?.role).toBe('assistant')
    expect(transcript.endsWith(`Assistant: ${DEMO_PREFILL}`)).toBe(true)
    // step 9: the tool result carries the file's contents
    const results = second!.messages
      .flatMap((m) => m.content)
      .filter((b) => b.type === 'tool_result')
    expect(results).toHaveLength(1)
    expect(results[0]?.content?.[0]?.text).toBe(DEMO_SOURCE)
    expect(second!.messages.at(-1)?.role).toBe('user')
    expect(result.reply.content).toEqual([{ type: 'text', text: DEMO_FINAL_ANSWER }])
  })

  test('the session file keeps the tool call and result, never the prefill; resumption saved the tail', async () => {
    const { ws, turn } = await setup()
    const result = await turn()
    const { text, messages } = await savedLines(result.sessionPath)
    expect(text).not.toContain(DEMO_PREFILL)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(messages[0]?.content).toEqual([
      { type: 'text', text: 'What does src/parse-orders.ts do?' },
    ])
    expect(messages[1]?.content).toEqual([
      { type: 'text', text: 'First I will read the parser.' },
      expect.objectContaining({
        type: 'tool_call',
        name: 'read_file',
        input: { path: 'src/parse-orders.ts' },
      }),
    ])
    const call = messages[1]?.content[1]
    expect(messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        toolCallId: call?.type === 'tool_call' ? call.id : '',
        content: [{ type: 'text', text: DEMO_SOURCE }],
        isError: false,
      },
    ])
    const state = await loadSelfState(join(ws.dir, '.contextkit', 'self-state.json'))
    expect(state.source).toBe('file')
    expect(state.state?.streamTail?.sessionKey).toBe('one')
    expect(DEMO_FINAL_ANSWER.endsWith(state.state?.streamTail?.raw ?? '-')).toBe(true)
    expect(state.state?.streamTail?.raw).not.toContain(DEMO_PREFILL)
  })

  test('the trace records the turn table in order, in memory, in the caller trace and in JSONL', async () => {
    const { turn } = await setup()
    const mine = memoryTrace()
    const result = await turn({ trace: mine })
    const stages = result.trace.events.map((e) => e.stage)
    const order: string[] = [
      AGENT_TRACE_STAGES.sessionLoaded,
      // write-ahead: the user's message is saved before the first call, the reply before its
      // tools, the results after them
      AGENT_TRACE_STAGES.saved,
      MIDDLEWARE_STAGES.preload,
      RESUMPTION_TRACE_STAGES.skipped,
      MIDDLEWARE_STAGES.contextMetadata,
      PREFILL_TRACE_STAGES.injected,
      AGENT_TRACE_STAGES.budget,
      AGENT_TRACE_STAGES.request,
      AGENT_TRACE_STAGES.reply,
      PREFILL_TRACE_STAGES.stripped,
      AGENT_TRACE_STAGES.finalized,
      AGENT_TRACE_STAGES.saved,
      AGENT_TRACE_STAGES.tool,
      AGENT_TRACE_STAGES.saved,
      AGENT_TRACE_STAGES.budget,
      AGENT_TRACE_STAGES.request,
      AGENT_TRACE_STAGES.reply,
      RESUMPTION_TRACE_STAGES.captured,
      AGENT_TRACE_STAGES.finalized,
      AGENT_TRACE_STAGES.saved,
    ]
    expect(stages.filter((s) => order.includes(s))).toEqual(order)
    expect(stages).not.toContain('warning')
    // the prefill went with the first call only, so only that reply had one to strip
    expect(result.trace.byStage(PREFILL_TRACE_STAGES.stripped).map((e) => e.data.match)).toEqual([
      'exact',
    ])
    expect(result.trace.byStage(AGENT_TRACE_STAGES.finalized).map((e) => e.data.final)).toEqual([
      false,
      true,
    ])
    expect(mine.events.map((e) => e.stage)).toEqual(stages)
    const lines = (await readFile(result.tracePath ?? '', 'utf8')).trim().split('\n')
    expect(lines.map((l) => JSON.parse(l).stage)).toEqual(stages)
  })

  test('a second session wakes up with the first one’s tail, after the stable sections', async () => {
    const { turn, bodies } = await setup()
    await turn()
    const second = await turn({ sessionId: 'two', userText: 'Where were we?' })
    const body = bodies()[2]!
    expect(body.system).toHaveLength(2)
    expect(body.system?.[0]?.cache_control).toEqual({ type: 'ephemeral' })
    expect(body.system?.[0]?.text).not.toContain('Your own last words')
    expect(body.system?.[1]?.text).toContain('Your own last words')
    expect(body.system?.[1]?.text).toContain('so next I would')
    const all = systemOf(body)
    expect(all.indexOf('You are Ada')).toBeLessThan(all.indexOf('Your own last words'))
    expect(second.requests).toHaveLength(1)
    expect(second.trace.byStage(RESUMPTION_TRACE_STAGES.injected)).toHaveLength(1)
    const { messages } = await savedLines(second.sessionPath)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant'])
  })

  test('history from the session file is sent on the next turn of the same session', async () => {
    const { turn, bodies } = await setup()
    await turn()
    const next = await turn({ userText: 'Thanks. And the totals?' })
    expect(next.trace.byStage(AGENT_TRACE_STAGES.sessionLoaded)[0]?.data.messages).toBe(4)
    const transcript = bodies()[2]!.messages.map(textOfWire).join('')
    expect(transcript).toContain('Assistant: First I will read the parser.')
    expect(transcript).toContain('User: Thanks. And the totals?')
    expect(transcript).not.toContain(`${DEMO_PREFILL} First I will`)
    const { messages } = await savedLines(next.sessionPath)
    expect(messages).toHaveLength(6)
  })
})

describe('models without native prefill', () => {
  test('claude-sonnet-4-6: plain messages, no trailing assistant turn, the instruction in the last user turn', async () => {
    const { turn, bodies } = await setup()
    const result = await turn({ model: 'claude-sonnet-4-6' })
    const first = bodies()[0]!
    expect(first.messages.at(-1)?.role).toBe('user')
    const last = first.messages.at(-1)!
    expect(textOfWire(last)).toContain('What does src/parse-orders.ts do?')
    expect(textOfWire(last)).toContain('Format: NDJSON')
    expect(last.content.at(-1)?.text).toBe(`\n\n${defaultInstruction(DEMO_PREFILL)}`)
    expect(result.trace.byStage(AGENT_TRACE_STAGES.request)[0]?.data.formatter).toBe('native')
    expect(result.trace.byStage(PREFILL_TRACE_STAGES.injected)[0]?.data.mode).toBe('instruct')
    const { text } = await savedLines(result.sessionPath)
    expect(text).not.toContain(DEMO_PREFILL)
    expect(text).not.toContain('reply_prefix')
  })

  test('a model that rejects prefill at the provider: recover() retries once with the instruction', async () => {
    // our side believes claude-haiku-4-5 takes a prefill; the emulator's model does not
    const { emulator, turn } = await setup(demoScript, [
      { id: 'claude-haiku-4-5', supportsPrefill: false },
    ])
    const result = await turn()
    const calls = emulator.requests.filter((r) => r.path === '/v1/messages')
    expect(calls.map((r) => r.status)).toEqual([400, 200, 200])
    const rejected = calls[0]!.body as Body
    expect(rejected.messages.at(-1)?.role).toBe('assistant')
    const retried = calls[1]!.body as Body
    expect(retried.messages.at(-1)?.role).toBe('user')
    expect(retried.messages.at(-1)?.content.at(-1)?.text).toBe(
      `\n\n${defaultInstruction(DEMO_PREFILL)}`,
    )
    expect(result.recovered).toBe(true)
    const fallback = result.trace.byStage(PREFILL_TRACE_STAGES.fallback)
    expect(fallback).toHaveLength(1)
    expect(fallback[0]?.data.error).toContain(NO_PREFILL_MESSAGE)
    expect(result.trace.byStage(AGENT_TRACE_STAGES.recovered)[0]?.data.by).toBe('prefill')
    // the retried call and the one after it use plain messages: the model takes no prefill
    expect(result.trace.byStage(AGENT_TRACE_STAGES.request).map((e) => e.data.formatter)).toEqual([
      'anthropic-xml',
      'native',
      'native',
    ])
    expect(result.requests).toHaveLength(3)
    const { text } = await savedLines(result.sessionPath)
    expect(text).not.toContain(DEMO_PREFILL)
    expect(result.reply.content).toEqual([{ type: 'text', text: DEMO_FINAL_ANSWER }])
  })
})

describe('options and failures', () => {
  test('NativeFormatter on request: the hint in a real user message, the prefill as the last message', async () => {
    const { turn, bodies } = await setup()
    await turn({ formatter: 'native' })
    const first = bodies()[0]!
    expect(first.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(textOfWire(first.messages[0])).toContain(
      `[Context available in file ${DEMO_CONTEXT_FILE}]`,
    )
    expect(textOfWire(first.messages[1])).toBe(DEMO_PREFILL)
  })

  test('a tight budget drops the lowest-priority section and says so in the system prompt', async () => {
    const { turn, bodies } = await setup()
    const result = await turn({ preloadFiles: ['src/parse-orders.ts'], budgetTokens: 300 })
    const dropped = result.trace.byStage(AGENT_TRACE_STAGES.budget)[0]?.data.omissions
    expect(dropped).toEqual([expect.objectContaining({ id: 'preload:src/parse-orders.ts' })])
    const system = systemOf(bodies()[0]!)
    expect(system).toContain('[Context note: some material was left out to fit the token budget.]')
    expect(system).toContain('preload:src/parse-orders.ts')
    expect(textOfWire(bodies()[0]!.messages.at(-1))).not.toContain('export function parseOrders')
  })

  test('preloaded files within the budget go into the user turn', async () => {
    const { turn, bodies } = await setup()
    await turn({ preloadFiles: ['src/parse-orders.ts'] })
    const transcript = textOfWire(bodies()[0]!.messages.at(-1))
    expect(transcript).toContain('#### `src/parse-orders.ts`')
    expect(transcript).toContain('export function parseOrders')
  })

  test('a provider failure rejects the turn, finalizes it, and saves only the user message', async () => {
    const { turn } = await setup([{ fault: { kind: 'http', status: 500, shouldRetry: false } }])
    const trace = memoryTrace()
    await expect(turn({ trace })).rejects.toMatchObject({ status: 500 })
    expect(trace.byStage(AGENT_TRACE_STAGES.stop)[0]?.data.stopReason).toBe('error')
    expect(trace.byStage(PREFILL_TRACE_STAGES.stripped)).toHaveLength(1)
    expect(trace.byStage(AGENT_TRACE_STAGES.saved).map((e) => e.data.roles)).toEqual([['user']])
  })

  test('without a client or an API key the runner throws a ConfigurationError', async () => {
    const ws = await createDemoWorkspace()
    cleanups.push(() => ws.cleanup())
    await expect(
      runEmbeddedTurn({ model: 'claude-haiku-4-5', workspace: ws.dir, userText: 'hi' }),
    ).rejects.toMatchObject({ code: 'configuration_error' })
  })
})
