// What the design asks of resumption beyond the defaults: its heading and parts in our words, a
// `render` to write your own, its placement (`position: 'first'`), thinking in the tail, and the
// internalize tool's refusals.
import { readFile } from 'node:fs/promises'
import {
  ConfigurationError,
  createRunInfo,
  createTurnContext,
  emptyUsage,
  getModelInfo,
  runFinalize,
  runPrepare,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import { afterEach, expect, test } from 'vitest'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { internalizeTool } from './internalize-tool.js'
import { resumption } from './middleware.js'
import { emptySelfState } from './self-state.js'
import { loadSelfState, saveSelfState } from './state-file.js'
import { buildResumptionSection, renderWakeUp } from './wake-up.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})
async function dir(): Promise<string> {
  const { dir, cleanup } = await tempDir('resumption-seed-')
  cleanups.push(cleanup)
  return dir
}

const ctx = {
  streamTail: 'The parser drops the last line when the file has no newline—',
  anchors: [{ raw: 'Tests before refactors.', triggerType: 'decision' }],
}

test('the README shows the default wake-up text as renderWakeUp writes it', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
  const sample = /<!-- wake-up-sample -->\n```text\n([\s\S]*?)\n```/.exec(readme)?.[1]
  expect(sample).toBe(buildResumptionSection(ctx, { mark: false }))
  expect(sample?.startsWith('# Where you left off\n')).toBe(true)
})

test('render writes the text; it is called again with less while over the budget', () => {
  const seen: number[] = []
  const text = buildResumptionSection(
    {
      ...ctx,
      anchors: Array.from({ length: 40 }, (_, i) => ({ raw: `anchor ${i}`, triggerType: 'x' })),
    },
    {
      mark: false,
      budgetTokens: 60,
      render: ({ streamTail, anchors }) => {
        seen.push(anchors.length)
        return `# Resumption Context\n${streamTail}\n${anchors.map((a) => a.raw).join('\n')}`
      },
    },
  )
  expect(text.startsWith('# Resumption Context\nThe parser')).toBe(true)
  expect(seen[0]).toBe(40)
  expect(seen.at(-1)).toBeLessThan(40)
  expect(buildResumptionSection(ctx, { render: () => '  ' })).toBe('')
  expect(() => buildResumptionSection(ctx, { render: (() => 7) as never })).toThrow(ValidationError)
  expect(() => renderWakeUp(null as never)).toThrow(ValidationError)
})

test("the middleware's render, and position 'first' (before the identity, stable)", async () => {
  const path = `${await dir()}/state.json`
  const now = Date.parse('2026-03-01T09:00:00Z')
  const state = {
    ...emptySelfState('monday', { now: () => now }),
    streamTail: {
      raw: 'half a thought—',
      sessionKey: 'monday',
      capturedAt: new Date(now).toISOString(),
      tokenCount: 4,
      counterId: 'x',
    },
  }
  await saveSelfState(path, state)
  const turn = createTurnContext({
    model: getModelInfo('claude-sonnet-4-6'),
    system: [{ id: 'identity', text: 'You are careful.', priority: 100, cache: 'stable' }],
    messages: [textMessage('user', 'Morning')],
  })
  const run = () => createRunInfo({ sessionId: 'tuesday' })
  const mine = resumption({
    path,
    now: () => now,
    render: ({ streamTail }) => `Before: ${streamTail}`,
  })
  const custom = await runPrepare([mine], turn, run())
  expect(custom.system[1]?.text).toContain('Before: half a thought—')
  const first = await runPrepare(
    [resumption({ path, now: () => now, position: 'first' })],
    turn,
    run(),
  )
  expect(first.system.map((s) => `${s.id}:${s.cache}`)).toEqual([
    'resumption:stable',
    'identity:stable',
  ])
  const after = await runPrepare([resumption({ path, now: () => now })], turn, run())
  expect(after.system.map((s) => `${s.id}:${s.cache}`)).toEqual([
    'identity:stable',
    'resumption:volatile',
  ])
  expect(() => resumption({ position: 'top' as never })).toThrow(ValidationError)
})

test('a reply stopped while thinking leaves its thought as the tail (captureThinking)', async () => {
  const base = await dir()
  const turn = createTurnContext({
    model: getModelInfo('claude-sonnet-4-6'),
    messages: [textMessage('user', 'Go')],
  })
  const reply = {
    role: 'assistant' as const,
    content: [
      { type: 'thinking' as const, thinking: 'what if the state kept the raw processing—' },
    ],
    stopReason: 'max_tokens' as const,
    usage: emptyUsage(),
  }
  for (const [name, options, expected] of [
    ['on', {}, 'what if the state kept the raw processing—'],
    ['off', { captureThinking: false }, undefined],
  ] as const) {
    const path = `${base}/${name}.json`
    const mw = resumption({ path, ...options })
    const run = createRunInfo({ sessionId: 'monday' })
    await runFinalize([mw], reply, await runPrepare([mw], turn, run), run)
    expect((await loadSelfState(path)).state?.streamTail?.raw).toBe(expected)
  }
})

test('the internalize tool refuses what it cannot keep', async () => {
  expect(() => internalizeTool({})).toThrow(ConfigurationError)
  expect(() => internalizeTool({ workspace: '/tmp', name: 'bad name' })).toThrow(ValidationError)
  const tool = internalizeTool({ path: `${await dir()}/s.json`, maxAnchors: 2 })
  await expect(tool.execute({ phrase: '   ' })).rejects.toThrow(ValidationError)
  for (const p of ['one', 'two', 'three']) await tool.execute({ phrase: p })
  expect(tool.name).toBe('internalize')
  expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['phrase'] })
})
