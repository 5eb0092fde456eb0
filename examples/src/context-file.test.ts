import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { afterEach, expect, test } from 'vitest'
import { type ContextFileDeps, main, RUN_JS_TOOL_NAME } from './context-file.js'
import { contextFileScript, EXPLORATION_SCRIPT } from './context-file-script.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** 500 posts by 37 authors, NDJSON, with nested fields as in the seed's feed. */
async function feed(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'context-file-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  const lines = Array.from({ length: 500 }, (_, i) =>
    JSON.stringify({
      author: `did:plc:${(i * 7) % 37}`,
      text: `Arsenal post ${i}`,
      createdAt: new Date(Date.UTC(2024, 10, 2, 15, i % 60)).toISOString(),
      authorProfile: { displayName: `Fan ${(i * 7) % 37}` },
    }),
  )
  const file = join(dir, 'arsenal-feed.ndjson')
  await writeFile(file, `${lines.join('\n')}\n`)
  return file
}

async function run(script: Script, extra: Partial<ContextFileDeps> = {}) {
  const emulator = await startAnthropicEmulator({ script })
  cleanups.push(() => emulator.close())
  const client = new Anthropic({ apiKey: 'test', baseURL: emulator.url, maxRetries: 0 })
  const result = await main({
    client,
    contextFile: await feed(),
    question: 'How many unique authors posted in this feed?',
    ...extra,
  })
  const bodies = emulator.requests.filter((r) => r.path === '/v1/messages').map((r) => r.body)
  return { result, bodies }
}

const userText = (body: unknown): string =>
  JSON.stringify(
    (body as { messages: Array<{ role: string; content: unknown }> }).messages[0]?.content,
  )

test('with the metadata the first script already works on the data: no exploration turn', async () => {
  const { result, bodies } = await run(contextFileScript)
  expect(result.submitted).toBe(true)
  expect(result.answer).toBe(37)
  expect(result.iterations).toHaveLength(1)
  expect(result.result.steps).toBe(1)
  expect(result.result.stopReason).toBe('stop_condition')
  // the first request described the file, and the sandbox had `__vars.contextMeta`
  expect(userText(bodies[0])).toContain('[Context available in __vars.context]')
  expect(userText(bodies[0])).toContain(
    'Fields: \\"author\\", \\"text\\", \\"createdAt\\", \\"authorProfile.displayName\\"',
  )
  expect(userText(bodies[0])).toContain('Use the description above and `__vars.contextMeta`')
  const first = result.iterations[0]!
  expect(first.code).toContain('__vars.contextMeta')
  expect(first.code).toContain('r["author"]')
  expect(first.code).not.toContain(EXPLORATION_SCRIPT)
  expect(first.output).toBe('format ndjson, 500 records\n37 distinct author values\nSUBMITTED')
  expect(result.metadata).toMatchObject({
    format: 'ndjson',
    recordCount: 500,
    fileName: 'arsenal-feed.ndjson',
  })
})

test('without the metadata the model spends its first iteration exploring', async () => {
  const { result, bodies } = await run(contextFileScript, { metadata: false })
  expect(result.answer).toBe(37)
  expect(result.iterations.map((i) => i.code === EXPLORATION_SCRIPT)).toEqual([true, false])
  expect(result.iterations[0]!.output.split('\n')[0]).toMatch(/^string \d+$/)
  expect(result.result.steps).toBe(2)
  expect(userText(bodies[0])).not.toContain('Context available')
  expect(userText(bodies[0])).toContain('Explore its format with a first script')
  expect(result.metadata).toBeUndefined()
})

test('runaway scripts are stopped, reported to the model, and the run goes on', async () => {
  const script: Script = [
    { toolUse: { name: RUN_JS_TOOL_NAME, input: { code: 'while (true) {}' } } },
    { toolUse: { name: RUN_JS_TOOL_NAME, input: { code: 'new Array(1e9).fill(0)' } } },
    contextFileScript,
  ]
  const { result } = await run(script, {
    sandbox: { timeLimitMs: 1000, memoryLimitBytes: 32 * 1024 * 1024 },
  })
  const [loop, bomb, count] = result.iterations
  expect(loop).toMatchObject({ isError: true })
  expect(loop!.output).toContain('Script stopped: it ran over the 1000 ms time limit.')
  expect(bomb!.output).toContain('Script stopped: it went over the 32 MB memory limit')
  expect(count).toMatchObject({ isError: false })
  expect(result.answer).toBe(37)
  expect(result.result.steps).toBe(3)
})
