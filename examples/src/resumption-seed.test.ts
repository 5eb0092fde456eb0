// Resumption as its design asks, through the loop, the real SDK and the testkit emulator: the
// model keeps a phrase with the internalize tool, the next session wakes up to it; and what
// `position: 'first'` costs in cache reads, measured (the resumption README quotes the figures).
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { runAgent } from '@contextkit/agent-loop'
import { anthropicProvider } from '@contextkit/agent-loop/anthropic'
import { textMessage } from '@contextkit/core'
import { internalizeTool, loadSelfState, resumption } from '@contextkit/resumption/node'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { afterEach, expect, test } from 'vitest'
import { tempDir } from '../../test-utils/temp-dir.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function emulator(script: Script) {
  const em = await startAnthropicEmulator({ script })
  cleanups.push(() => em.close())
  const client = new Anthropic({ apiKey: 'test', baseURL: em.url, maxRetries: 0 })
  return { em, provider: anthropicProvider({ client }) }
}

async function workspace(): Promise<string> {
  const { dir, cleanup } = await tempDir('resumption-seed-')
  cleanups.push(cleanup)
  return dir
}

test('the model keeps a phrase with the internalize tool; the next session wakes up to it', async () => {
  const ws = await workspace()
  const phrase = 'Direction matters more than history.'
  const { em, provider } = await emulator([
    { text: 'Worth keeping.', toolUse: { name: 'internalize', input: { phrase, why: 'insight' } } },
    'So the tail stays live—',
    'Picking it back up.',
  ])
  const tools = [internalizeTool({ workspace: ws })]
  const first = await runAgent({
    provider,
    model: 'claude-haiku-4-5',
    workspace: ws,
    tools,
    middleware: [resumption()],
    messages: [textMessage('user', 'Think about state files.')],
    runId: 'monday',
  }).result
  expect(first.error).toBeUndefined()
  const state = (await loadSelfState(join(ws, '.contextkit', 'self-state.json'))).state
  expect(state?.verbatimAnchors.map((a) => [a.raw, a.triggerType])).toEqual([[phrase, 'insight']])
  expect(state?.streamTail?.raw).toBe('So the tail stays live—')
  // the tool result the model read
  const toolResult = JSON.stringify(em.requests[1]?.body)
  expect(toolResult).toContain(`Kept: \\"${phrase}\\"`)

  await runAgent({
    provider,
    model: 'claude-haiku-4-5',
    workspace: ws,
    tools,
    middleware: [resumption()],
    messages: [textMessage('user', 'Where were we?')],
    runId: 'tuesday',
  }).result
  const system = JSON.stringify((em.requests[2]?.body as { system?: unknown } | undefined)?.system)
  expect(system).toContain('# Where you left off')
  expect(system).toContain(`• \\"${phrase}\\"`)
  expect(system).toContain('So the tail stays live—')
})

/** Three sessions in a row; the cache-read tokens of the third one's request. */
async function thirdSessionCacheRead(position: 'after-stable' | 'first'): Promise<number> {
  const ws = await workspace()
  const identity = `You are a careful engineer. ${'Keep answers short and exact. '.repeat(300)}`
  // every session ends on other words, so every wake-up text is new
  const { provider } = await emulator(
    (req) => `Note ${req.index}: the parser drops the last line when—`,
  )
  let cacheRead = 0
  for (const day of ['monday', 'tuesday', 'wednesday']) {
    const result = await runAgent({
      provider,
      model: 'claude-sonnet-4-6',
      workspace: ws,
      system: [{ id: 'identity', text: identity, priority: 100, cache: 'stable' }],
      middleware: [resumption({ position })],
      messages: [textMessage('user', `Good morning, it is ${day}.`)],
      runId: day,
    }).result
    expect(result.error).toBeUndefined()
    cacheRead = result.usage.cacheRead
  }
  return cacheRead
}

test("position 'first' costs the cached system prompt on every new tail; the default keeps it (README figures)", async () => {
  const after = await thirdSessionCacheRead('after-stable')
  const first = await thirdSessionCacheRead('first')
  expect(after).toBeGreaterThan(1024)
  expect(first).toBe(0)
  const readme = await readFile(
    new URL('../../packages/resumption/README.md', import.meta.url),
    'utf8',
  )
  expect(readme).toContain(
    `read ${after} cached tokens with the default placement and ${first} with \`position: 'first'\``,
  )
})
