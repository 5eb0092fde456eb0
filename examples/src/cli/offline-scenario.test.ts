import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { PREFILL_TRACE_STAGES } from '@contextkit/prefill'
import { type AnthropicEmulator, startAnthropicEmulator } from '@contextkit/testkit'
import { afterEach, expect, test } from 'vitest'
import { createDemoWorkspace, DEMO_PREFILL, type DemoWorkspace } from '../demo-workspace.js'
import { type EmbeddedTurnOptions, runEmbeddedTurn } from '../embedded-runner.js'
import {
  describeFile,
  mentionedPaths,
  OFFLINE_ANSWER_MARK,
  offlineScenario,
} from './offline-scenario.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup() {
  const emulator: AnthropicEmulator = await startAnthropicEmulator({ script: offlineScenario })
  cleanups.push(() => emulator.close())
  const ws: DemoWorkspace = await createDemoWorkspace()
  cleanups.push(() => ws.cleanup())
  const client = new Anthropic({ apiKey: 'offline-demo', baseURL: emulator.url, maxRetries: 0 })
  const ask = async (userText: string, extra: Partial<EmbeddedTurnOptions> = {}) => {
    const turn = await runEmbeddedTurn({
      client,
      model: 'claude-haiku-4-5',
      workspace: ws.dir,
      userText,
      sessionId: 'one',
      contextFile: 'data/orders.ndjson',
      maxModelCalls: 6,
      ...extra,
    })
    const calls = turn.result.messages
      .flatMap((m) => m.content)
      .filter((b) => b.type === 'tool_call')
      .map((b) => (b.type === 'tool_call' ? `${b.name} ${JSON.stringify(b.input)}` : ''))
    return { turn, calls, text: turn.result.text }
  }
  return { ask, ws, emulator }
}

test('"What files are in this workspace?": lists, reads the relevant files at once, answers from them', async () => {
  const { ask } = await setup()
  const { calls, text, turn } = await ask('What files are in this workspace?')
  expect(calls).toEqual([
    'list_files {}',
    'read_file {"path":"README.md"}',
    'read_file {"path":"src/parse-orders.ts"}',
    'read_file {"path":"src/report.ts"}',
  ])
  expect(turn.result.steps).toBe(3)
  // the demo prints the mark beside the reply: it is not the model's text
  expect(text).not.toContain(OFFLINE_ANSWER_MARK)
  expect(text).toContain('The workspace has 7 files: AGENTS.md, PREFILL.md, README.md, SOUL.md')
  expect(text).toContain(
    '- src/report.ts: 12 lines, exports totalsByCustomer, uses ./parse-orders.js',
  )
  expect(text).toContain('- AGENTS.md: in my system prompt already')
  expect(text).toContain(
    'The context file orders.ndjson is NDJSON (newline-delimited JSON) with 4 records',
  )
  expect(text).not.toContain(DEMO_PREFILL)
})

test('a named file is read at once; a preloaded one is not read again; a refusal is reported', async () => {
  const { ask } = await setup()
  expect((await ask('What does src/report.ts do?')).calls).toEqual([
    'read_file {"path":"src/report.ts"}',
  ])
  const preloaded = await ask('Explain src/parse-orders.ts', {
    preloadFiles: ['src/parse-orders.ts'],
  })
  expect(preloaded.calls).toEqual([])
  expect(preloaded.text).toContain(
    '- src/parse-orders.ts (preloaded): 15 lines, exports Order, parseOrders, totalOf',
  )
  expect(preloaded.text).toContain('This session already holds 1 earlier question(s).')
  const denied = await ask('Show me .env and src/missing.ts')
  expect(denied.calls).toEqual(['read_file {"path":"src/missing.ts"}'])
  expect(denied.text).toContain(
    '- src/missing.ts: I could not read it (Tool "read_file" failed: preload_file_not_found',
  )
})

test('without native prefill the answer begins with the instructed prefix; "where were we" resumes without tools', async () => {
  const { ask, emulator } = await setup()
  const first = await ask('What does src/report.ts do?', {
    model: 'claude-sonnet-4-6',
    sessionId: 's1',
  })
  const reply = first.turn.result.messages.find((m) => m.role === 'assistant')
  // the model began with the prefill as instructed; the prefill middleware took it off again
  expect(first.turn.trace.byStage(PREFILL_TRACE_STAGES.injected)[0]?.data.mode).toBe('instruct')
  expect(first.turn.trace.byStage(PREFILL_TRACE_STAGES.stripped)[0]?.data.match).toBe('exact')
  expect(JSON.stringify(reply)).not.toContain(DEMO_PREFILL)
  const resumed = await ask('Morning! Where were we?', { sessionId: 's2' })
  expect(resumed.calls).toEqual([])
  expect(resumed.text).toContain('Picking up where I stopped. My last words were: "')
  expect(resumed.text).toContain('Next I would add a test for totalsByCustomer in src/report.ts')
  // the next session's resumption text holds the last session's words, and no demo label
  const last = emulator.requests.at(-1)?.body as { system?: unknown } | undefined
  const system = JSON.stringify(last?.system)
  expect(system).toContain('Next I would add a test for totalsByCustomer')
  expect(system).not.toContain(OFFLINE_ANSWER_MARK)
  expect(resumed.text).not.toContain(OFFLINE_ANSWER_MARK)
})

test('mentionedPaths and describeFile', () => {
  expect(
    mentionedPaths(
      'Compare src/a.ts with README.md and data/x/y.ndjson, not https://x.io/a.md or .env',
    ),
  ).toEqual(['src/a.ts', 'README.md', 'data/x/y.ndjson'])
  expect(mentionedPaths('What files are here?')).toEqual([])
  expect(describeFile('a.ndjson', '{"a":1,"b":2}\n{"a":3}\n\n')).toBe('2 records with fields a, b')
  expect(describeFile('n.md', '# Title\n\n- one\n- two\n')).toBe('"Title" (2 points): one')
  expect(
    describeFile(
      'x.ts',
      "import { y } from './y.js'\nexport function f() {}\nexport const g = 1\n",
    ),
  ).toBe('3 lines, exports f, g, uses ./y.js')
  expect(describeFile('x.bin', 'a\nb')).toBe('2 lines')
})

test('the offline answers say each thing once and fit the file: one "Wrote", no data advice for code that parses none', async () => {
  const { ask, ws } = await setup()
  await writeFile(
    join(ws.dir, 'src', 'greet.ts'),
    'export function greet(name: string) {\n  return "Hi " + name\n}\n',
  )
  const greet = await ask('What does src/greet.ts do?', { sessionId: 'greet' })
  expect(greet.text).toContain('Next I would add a test for greet in src/greet.ts.')
  expect(greet.text).not.toContain('malformed')
  const orders = await ask('What does src/parse-orders.ts do?', { sessionId: 'orders' })
  expect(orders.text).toContain('starting with a malformed line in the data')
  const wrote = await ask('Write a summary of the workspace to notes.md', {
    sessionId: 'write',
    writeFiles: 'allow',
  })
  expect(wrote.text.match(/\bwrote\b/gi)).toHaveLength(1)
}, 60_000)
