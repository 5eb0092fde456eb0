import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { afterEach, expect, test } from 'vitest'
import {
  type ContextFileDeps,
  EXTRACT_PROMPT,
  main,
  RUN_JS_TOOL_NAME,
  SUB_CALL_SYSTEM_PROMPT,
} from './context-file.js'
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
    ...(extra.context === undefined ? { contextFile: await feed() } : {}),
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
}, 120_000)

test('without the metadata the model spends its first iteration exploring', async () => {
  const { result, bodies } = await run(contextFileScript, { metadata: false })
  expect(result.answer).toBe(37)
  expect(result.iterations.map((i) => i.code === EXPLORATION_SCRIPT)).toEqual([true, false])
  expect(result.iterations[0]!.output.split('\n')[0]).toMatch(/^string \d+$/)
  expect(result.result.steps).toBe(2)
  // no description, but the hint still says where the context is and its size (seed 001)
  const chars = Number(result.iterations[0]!.output.split('\n')[0]!.split(' ')[1])
  expect(userText(bodies[0])).toContain(
    `[Context available in __vars.context (${chars.toLocaleString('en-US')} chars)]`,
  )
  expect(userText(bodies[0])).not.toContain('Format:')
  expect(userText(bodies[0])).toContain('Explore its format with a first script')
  // the first-iteration note is for the first call only
  expect(userText(bodies[1])).not.toContain('Explore its format')
  expect(userText(bodies[1])).toContain('[Context available in __vars.context (')
  expect(result.metadata).toBeUndefined()
}, 120_000)

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
  // under heavy load the allocation may reach the time limit before the memory limit
  expect(bomb!.output).toMatch(
    /Script stopped: it (went over the 32 MB memory limit|ran over the 1000 ms time limit)/,
  )
  expect(count).toMatchObject({ isError: false })
  expect(result.answer).toBe(37)
  expect(result.result.steps).toBe(3)
}, 120_000)

type Body = {
  system?: Array<{ text: string }> | string
  messages: Array<{ role: string; content: unknown }>
  tool_choice?: { type: string }
}
const systemText = (body: unknown): string => {
  const system = (body as Body).system
  return typeof system === 'string' ? system : (system ?? []).map((b) => b.text).join('')
}
const allText = (body: unknown): string => JSON.stringify((body as Body).messages)

test('inline --context: the one-line hint (no file name) and the same answer', async () => {
  const context = Array.from({ length: 40 }, (_, i) =>
    JSON.stringify({ author: `a${i % 9}`, text: `post ${i}` }),
  ).join('\n')
  const { result, bodies } = await run(contextFileScript, { context })
  expect(result.answer).toBe(9)
  expect(result.result.steps).toBe(1)
  expect(userText(bodies[0])).toContain(
    `[Context available in __vars.context (${context.length.toLocaleString('en-US')} chars, 40 lines, 40 records, detected: NDJSON; fields: \\"author\\", \\"text\\"`,
  )
  expect(result.metadata).toMatchObject({ format: 'ndjson', recordCount: 40 })
  expect(result.metadata?.fileName).toBeUndefined()
}, 120_000)

test('an empty context gets no first-iteration note; the system prompt shows the Variable Space example', async () => {
  const { bodies } = await run(contextFileScript, { context: '', maxIterations: 1, extract: false })
  expect(userText(bodies[0])).not.toContain('You have not seen')
  const system = systemText(bodies[0])
  expect(system).toContain('## Variable space')
  expect(system).toContain('```js\nprint(JSON.stringify(__vars.contextMeta))')
  expect(system).toContain('print(__vars.context.slice(0, 400))')
}, 120_000)

test('no SUBMIT before the iterations run out: one more call without code extracts the answer', async () => {
  const peek = {
    toolUse: { name: RUN_JS_TOOL_NAME, input: { code: 'print("12 distinct author values")' } },
  }
  const { result, bodies } = await run([peek, peek, contextFileScript], { maxIterations: 2 })
  expect(result.submitted).toBe(false)
  expect(result.extracted).toBe(true)
  expect(result.answer).toBe('From the scripts: 12 distinct author values.')
  expect(bodies).toHaveLength(3)
  const last = bodies[2] as Body
  expect(last.tool_choice).toEqual({ type: 'none' })
  expect(allText(last)).toContain(EXTRACT_PROMPT)
  // the extract call describes the context the same way
  expect(allText(last)).toContain('[Context available in __vars.context]')
  expect(allText(last)).toContain('Source: arsenal-feed.ndjson')
  // without the extract step, no answer
  const off = await run([peek, peek], { maxIterations: 2, extract: false })
  expect(off.result).toMatchObject({ submitted: false, extracted: false, answer: undefined })
  expect(off.bodies).toHaveLength(2)
}, 120_000)

test('llm_query makes a sub-call that gets the part it is given and the metadata of the whole', async () => {
  const code = `const part = __vars.context.split('\\n').slice(0, 3).join('\\n')
const a = llm_query('Which team do these posts cheer for?', part)
print(a)
SUBMIT(a)`
  const script: Script = (req) => {
    if (req.system === SUB_CALL_SYSTEM_PROMPT) return { text: 'Arsenal' }
    if (req.index === 0) return { toolUse: { name: RUN_JS_TOOL_NAME, input: { code } } }
    return { text: 'Done.' }
  }
  const { result, bodies } = await run(script)
  expect(result).toMatchObject({ submitted: true, answer: 'Arsenal' })
  expect(result.iterations[0]!.output).toBe('Arsenal\nSUBMITTED')
  const sub = bodies.find((b) => systemText(b) === SUB_CALL_SYSTEM_PROMPT)!
  const text = userText(sub)
  expect(text).toContain('Which team do these posts cheer for?')
  // the part's own description, under the parent's name, so it reads as NDJSON
  expect(text).toContain('[Context available in the <context> block below]')
  expect(text).toContain('Source: arsenal-feed.ndjson')
  expect(text).toContain('Records: 3')
  // and the whole context's, passed down
  expect(text).toContain('It is a part of this context: [Context available (')
  expect(text).toContain('500 records, detected: NDJSON')
  expect(text).toContain('<context>\\n{\\"author\\"')
  expect((sub as Body & { tools?: unknown[] }).tools ?? []).toEqual([])
}, 120_000)
