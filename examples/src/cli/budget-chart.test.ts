import Anthropic from '@anthropic-ai/sdk'
import { AGENT_TRACE_STAGES, summaryMessage } from '@contextkit/agent-loop'
import { createTokenCounter, createTurnContext, getModelInfo, textMessage } from '@contextkit/core'
import { type AnthropicEmulator, startAnthropicEmulator } from '@contextkit/testkit'
import fc from 'fast-check'
import picocolors from 'picocolors'
import { afterEach, expect, test } from 'vitest'
import { createDemoWorkspace, type DemoWorkspace } from '../demo-workspace.js'
import { type EmbeddedTurnOptions, runEmbeddedTurn } from '../embedded-runner.js'
import {
  BUDGET_ROWS,
  type BudgetChart,
  bar,
  buildBudgetChart,
  renderBudgetChart,
} from './budget-chart.js'
import { BudgetChartCollector } from './budget-collector.js'
import { offlineScenario } from './offline-scenario.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function chartOf(extra: Partial<EmbeddedTurnOptions> = {}) {
  const emulator: AnthropicEmulator = await startAnthropicEmulator({ script: offlineScenario })
  cleanups.push(() => emulator.close())
  const ws: DemoWorkspace = await createDemoWorkspace()
  cleanups.push(() => ws.cleanup())
  const charts: BudgetChart[] = []
  const run = async (more: Partial<EmbeddedTurnOptions> = {}) => {
    const collector = new BudgetChartCollector({ maxTokens: 1024, onChart: (c) => charts.push(c) })
    const turn = await runEmbeddedTurn({
      client: new Anthropic({ apiKey: 'x', baseURL: emulator.url, maxRetries: 0 }),
      model: 'claude-haiku-4-5',
      workspace: ws.dir,
      userText: 'What does src/report.ts do?',
      contextFile: 'data/orders.ndjson',
      maxTokens: 1024,
      trace: collector.trace,
      onPrepared: collector.onPrepared,
      ...extra,
      ...more,
    })
    return { turn, chart: charts.at(-1)!, charts }
  }
  return { run }
}

const row = (chart: BudgetChart, key: string) => chart.rows.find((r) => r.key === key)!

test('one chart per run, before the first call, with every row and the loop’s own budget', async () => {
  const { run } = await chartOf()
  const { turn, chart, charts } = await run({ sessionId: 'a', preloadFiles: ['src/report.ts'] })
  expect(charts).toHaveLength(1)
  expect(chart.rows.map((r) => r.key)).toEqual([...BUDGET_ROWS])
  const budget = turn.trace.byStage(AGENT_TRACE_STAGES.budget)[0]!.data
  expect(chart.budget).toBe(budget.budget)
  expect(chart.sectionTokens).toBe(budget.tokens)
  // the section rows add up to what the loop fitted (nothing was left out)
  const sections = ['system', 'bootstrap', 'resumption', 'context-hint', 'preloaded', 'plan']
  expect(chart.rows.filter((r) => sections.includes(r.key)).reduce((n, r) => n + r.tokens, 0)).toBe(
    chart.sectionTokens,
  )
  // the formula is the loop's: window − reply − messages − tools
  const [, window, reply, messages, tools] =
    /^([\d,]+) window − ([\d,]+) reply − ([\d,]+) messages − ([\d,]+) tools$/
      .exec(chart.budgetFormula)!
      .map((s) => Number(s.replaceAll(',', '')))
  expect(window! - reply! - messages! - tools!).toBe(chart.budget)
  expect(tools).toBe(row(chart, 'tools').tokens)
  expect(row(chart, 'bootstrap').detail).toBe('AGENTS.md, SOUL.md')
  expect(row(chart, 'preloaded').detail).toBe('src/report.ts')
  expect(row(chart, 'context-hint').detail).toBe('orders.ndjson (ndjson, 4 records)')
  expect(row(chart, 'prefill').detail).toContain('sent as the start of the reply')
  expect(row(chart, 'resumption').tokens).toBe(0)
  expect(row(chart, 'history').detail).toBe('new session')
  expect(chart.omitted).toEqual([])
  // the next session wakes up with the last words; the same session brings its history instead
  const next = await run({ sessionId: 'b' })
  expect(row(next.chart, 'resumption').tokens).toBeGreaterThan(20)
  const same = await run({ sessionId: 'b', userText: 'And src/parse-orders.ts?' })
  expect(row(same.chart, 'history').detail).toBe('4 messages')
  expect(row(same.chart, 'history').tokens).toBeGreaterThan(0)
  expect(row(same.chart, 'resumption').detail).toBe(
    'last words are already in this session’s history',
  )
})

test('what was left out, and why: a refused file, a file over preload’s budget, a section dropped to fit', async () => {
  const { run } = await chartOf()
  const { chart } = await run({
    preloadFiles: ['src/report.ts', '.env', 'nope.ts'],
    budgetTokens: 300,
  })
  expect(chart.budgetFormula).toBe('set by budgetTokens')
  const omitted = Object.fromEntries(chart.omitted.map((o) => [o.what, o.why]))
  expect(omitted['preload:.env']).toBe('refused: preload_path_denied')
  expect(omitted['preload:nope.ts']).toBe('refused: preload_file_not_found')
  expect(omitted['preload:src/report.ts']).toBe(
    'dropped to fit the section budget (lowest priority first)',
  )
  expect(row(chart, 'preloaded').tokens).toBe(0)
  expect(chart.sectionTokens).toBeLessThanOrEqual(300)
  const lines = renderBudgetChart(chart, picocolors.createColors(false))
  expect(lines[0]).toBe(
    'context budget · claude-haiku-4-5 · 200,000-token window · before the first call',
  )
  expect(lines).toContain('  omitted:')
  expect(lines.some((l) => l.startsWith('    ✂ preload:src/report.ts (−'))).toBe(true)
  expect(lines.find((l) => l.includes('preloaded files'))).toMatch(
    /preloaded files\s+0 {2}none kept \(3 left out, see below\)$/,
  )
})

test('bars: at least a sliver for any tokens, never wider than the chart, longer for more', () => {
  fc.assert(
    fc.property(
      fc.nat(10_000),
      fc.nat(10_000),
      fc.integer({ min: 1, max: 100_000 }),
      (a, b, extra) => {
        const max = Math.max(a, b) + extra
        const [x, y] = [bar(a, max, 24), bar(b, max, 24)]
        expect(x.length).toBeLessThanOrEqual(24)
        if (a > 0) expect(x.length).toBeGreaterThan(0)
        if (a === 0) expect(x).toBe('')
        const cells = (s: string) =>
          [...s].reduce((n, ch) => n + (ch === '█' ? 8 : ' ▏▎▍▌▋▊▉'.indexOf(ch)), 0)
        if (a <= b) expect(cells(x)).toBeLessThanOrEqual(cells(y))
      },
    ),
  )
  expect(bar(5, 5, 4)).toBe('████')
  expect(bar(1, 16, 4)).toBe('▎')
  expect(bar(1, 1000, 4)).toBe('▏')
})

test('sections that exist but did not fit say "dropped to fit", never that they are missing', async () => {
  const { run } = await chartOf()
  const { chart } = await run({
    sessionId: 'tight',
    preloadFiles: ['src/report.ts'],
    budgetTokens: 10,
  })
  expect(row(chart, 'bootstrap').detail).toBe('dropped to fit: AGENTS.md, SOUL.md')
  expect(row(chart, 'context-hint').detail).toBe('dropped to fit: context-metadata')
  expect(row(chart, 'bootstrap').detail).not.toContain('in the workspace')
  expect(row(chart, 'context-hint').detail).not.toBe('no context file')
})

test('a compacted history shows its summary on a row of its own, apart from the history', () => {
  const counter = createTokenCounter()
  const turn = createTurnContext({
    model: getModelInfo('claude-haiku-4-5'),
    messages: [
      summaryMessage('## Task\nRead the logs.'),
      textMessage('assistant', 'Read chunk 9.'),
      textMessage('user', 'Go on.'),
    ],
  })
  const event = { budget: 1_000, tokens: 0, kept: [], omissions: [] }
  const chart = buildBudgetChart({ turn, event, maxTokens: 1024, counter })
  expect(row(chart, 'summary').tokens).toBeGreaterThan(0)
  expect(row(chart, 'summary').detail).toBe('the compacted history before the kept messages')
  expect(row(chart, 'history').detail).toBe('1 messages')
  const fresh = buildBudgetChart({
    turn: { ...turn, messages: turn.messages.slice(1) },
    event,
    maxTokens: 1024,
    counter,
  })
  expect(row(fresh, 'summary')).toMatchObject({ tokens: 0, detail: 'no compaction yet' })
})

test('a resumed run’s last message is described as what it is, not as an empty "your message"', () => {
  const counter = createTokenCounter()
  const model = getModelInfo('claude-haiku-4-5')
  const event = { budget: 1_000, tokens: 0, kept: [], omissions: [] }
  const call = { type: 'tool_call' as const, id: 'toolu_1', name: 'write_file', input: {} }
  const paused = { role: 'assistant' as const, content: [call] }
  const answered = {
    role: 'user' as const,
    content: [
      {
        type: 'tool_result' as const,
        toolCallId: 'toolu_1',
        content: [{ type: 'text' as const, text: 'Wrote notes.md' }],
        isError: false,
      },
    ],
  }
  const chartOn = (messages: Parameters<typeof createTurnContext>[0]['messages']) =>
    buildBudgetChart({
      turn: createTurnContext({ model, messages }),
      event,
      maxTokens: 1024,
      counter,
    })
  const results = row(chartOn([textMessage('user', 'Write it.'), paused, answered]), 'message')
  expect(results).toMatchObject({
    label: 'last message',
    detail: 'the results of 1 tool call (a resumed run)',
  })
  expect(results.tokens).toBeGreaterThan(0)
  expect(row(chartOn([textMessage('user', 'Write it.'), paused]), 'message')).toMatchObject({
    label: 'last message',
    detail: 'the paused reply, calling write_file',
  })
  expect(row(chartOn([textMessage('user', 'Hi  there')]), 'message')).toMatchObject({
    label: 'your message',
    detail: '"Hi there"',
  })
})
