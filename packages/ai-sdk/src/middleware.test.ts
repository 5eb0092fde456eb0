import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAnthropic } from '@ai-sdk/anthropic'
import { contextMetadata } from '@contextkit/context-metadata/node'
import { ValidationError } from '@contextkit/core'
import { prefill } from '@contextkit/prefill/node'
import { preload } from '@contextkit/preload/node'
import { resumption } from '@contextkit/resumption/node'
import { type AnthropicEmulator, type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { contextkitMiddleware } from './middleware.js'

const PREFILL = 'Let me work through this carefully.'
const open: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close()
})

async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ai-sdk-mw-'))
  open.push(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'PREFILL.md'), `${PREFILL}\n`)
  await writeFile(join(dir, 'AGENTS.md'), 'Always answer in one sentence.\n')
  await mkdir(join(dir, 'src'))
  await writeFile(
    join(dir, 'src', 'report.ts'),
    'export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0)\n',
  )
  await mkdir(join(dir, 'data'))
  await writeFile(join(dir, 'data', 'orders.ndjson'), '{"id":1,"total":9.5}\n{"id":2,"total":3}\n')
  return dir
}

async function emulator(
  script: Script,
  models?: Parameters<typeof startAnthropicEmulator>[0]['models'],
): Promise<AnthropicEmulator> {
  const emu = await startAnthropicEmulator({ script, ...(models ? { models } : {}) })
  open.push(() => emu.close())
  return emu
}

function middlewareFor(dir: string) {
  return [
    prefill(),
    contextMetadata({ file: join(dir, 'data', 'orders.ndjson') }),
    preload({ references: ['src/report.ts'] }),
    resumption({ path: join(dir, 'state', 'self-state.json') }),
  ]
}

type Wire = {
  system?: { text: string }[]
  messages: { role: string; content: string | { type: string; text?: string }[] }[]
}
const textsOf = (m: Wire['messages'][number]) =>
  typeof m.content === 'string'
    ? [m.content]
    : m.content.flatMap((b) => (b.text === undefined ? [] : [b.text]))

let lookups = 0
const lookup = tool({
  description: 'Look up an order',
  inputSchema: z.object({ id: z.number() }),
  execute: async ({ id }) => {
    lookups++
    return { id, total: id === 1 ? 9.5 : 3 }
  },
})

describe('contextkitMiddleware in generateText (real ai 7 + @ai-sdk/anthropic against testkit)', () => {
  test('a 3-step tool loop: prefill, hint, preloaded file and bootstrap in the request; no prefill in what the caller sees; resumption state written and read back', async () => {
    lookups = 0
    const dir = await workspace()
    const emu = await emulator([
      { text: `${PREFILL} First order one.`, toolUse: { name: 'lookup', input: { id: 1 } } },
      { toolUse: { name: 'lookup', input: { id: 2 } } },
      'The orders total 12.5.',
      'We were adding up the orders; they total 12.5.',
    ])
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
    const model = wrapLanguageModel({
      model: anthropic('claude-haiku-4-5'),
      middleware: contextkitMiddleware({ middleware: middlewareFor(dir), workspace: dir }),
    })
    const result = await generateText({
      model,
      system: 'You are an order assistant.',
      prompt: 'What do the orders total?',
      tools: { lookup },
      stopWhen: stepCountIs(5),
    })
    expect(result.text).toBe('The orders total 12.5.')
    expect(lookups).toBe(2)
    expect(result.steps).toHaveLength(3)
    // nothing the caller keeps carries the prefill
    expect(JSON.stringify(result.response.messages)).not.toContain(PREFILL)
    expect(result.steps[0]?.text).toBe('First order one.')

    const [first, second] = emu.requests.map((r) => r.body as Wire)
    // step 1: the prefill is the last assistant turn; hint and preloaded file in the user turn
    expect(first?.messages.at(-1)).toMatchObject({ role: 'assistant' })
    expect(textsOf(first!.messages.at(-1)!).join('')).toBe(PREFILL)
    const userText = textsOf(first!.messages[0]!).join('\n')
    expect(userText).toContain('What do the orders total?')
    expect(userText).toContain('orders.ndjson')
    expect(userText).toContain('src/report.ts')
    // stable system first: the caller's system and the bootstrap file
    const system = first!.system!.map((b) => b.text).join('\n')
    expect(system.indexOf('You are an order assistant.')).toBe(0)
    expect(system).toContain('Always answer in one sentence.')
    // step 2 carries no prefill, still the sections
    expect(second?.messages.at(-1)?.role).toBe('user')
    expect(textsOf(second!.messages[0]!).join('\n')).toContain('src/report.ts')

    // resumption: the final reply was captured; a new generateText wakes up with it
    expect(existsSync(join(dir, 'state', 'self-state.json'))).toBe(true)
    const again = await generateText({
      model,
      system: 'You are an order assistant.',
      prompt: 'Where were we?',
    })
    expect(again.text).toBe('We were adding up the orders; they total 12.5.')
    const woke = emu.requests.at(-1)!.body as Wire
    expect(woke.system!.map((b) => b.text).join('\n')).toContain('The orders total 12.5.')
  })

  test('streamText: the streamed text equals the final text, the prefill shown not even once', async () => {
    const dir = await workspace()
    const emu = await emulator([
      { text: `${PREFILL} The total is 12.5.`, transport: { deltaChars: 3 } },
    ])
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
    const model = wrapLanguageModel({
      model: anthropic('claude-haiku-4-5'),
      middleware: contextkitMiddleware({ middleware: [prefill()], workspace: dir }),
    })
    const result = streamText({ model, prompt: 'Total?' })
    let streamed = ''
    for await (const delta of result.textStream) streamed += delta
    expect(streamed).toBe('The total is 12.5.')
    expect(await result.text).toBe(streamed)
    const sent = emu.requests[0]!.body as Wire
    expect(textsOf(sent.messages.at(-1)!).join('')).toBe(PREFILL)
  })

  test('a model that refuses prefill: the 400 is recovered by the prefill middleware, the caller never sees it', async () => {
    const dir = await workspace()
    // the emulator's haiku refuses a trailing assistant turn, though core's table says it takes one
    const emu = await emulator(
      ['Recovered answer.'],
      [{ id: 'claude-haiku-4-5', supportsPrefill: false }],
    )
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
    const model = wrapLanguageModel({
      model: anthropic('claude-haiku-4-5'),
      middleware: contextkitMiddleware({ middleware: [prefill()], workspace: dir }),
    })
    const result = await generateText({ model, prompt: 'Hi', maxRetries: 0 })
    expect(result.text).toBe('Recovered answer.')
    expect(emu.requests.map((r) => r.status)).toEqual([400, 200])
    const retry = emu.requests[1]!.body as Wire
    expect(retry.messages.at(-1)?.role).toBe('user')
    expect(textsOf(retry.messages.at(-1)!).join('\n')).toContain(PREFILL)
  })

  test('claude-sonnet-4-6 (no prefill in the table): the fallback from the start, one request', async () => {
    const dir = await workspace()
    const emu = await emulator(['Fine.'])
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
    const model = wrapLanguageModel({
      model: anthropic('claude-sonnet-4-6'),
      middleware: contextkitMiddleware({ middleware: [prefill()], workspace: dir }),
    })
    const result = await generateText({ model, prompt: 'Hi' })
    expect(result.text).toBe('Fine.')
    expect(emu.requests).toHaveLength(1)
    expect((emu.requests[0]!.body as Wire).messages.at(-1)?.role).toBe('user')
  })

  test('a tight budget drops low-priority sections and tells the model', async () => {
    const dir = await workspace()
    const emu = await emulator(['ok'])
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
    const model = wrapLanguageModel({
      model: anthropic('claude-haiku-4-5'),
      middleware: contextkitMiddleware({
        middleware: middlewareFor(dir),
        workspace: dir,
        budgetTokens: 20,
      }),
    })
    await generateText({ model, prompt: 'Hi' })
    const system = (emu.requests[0]!.body as Wire).system!.map((b) => b.text).join('\n')
    expect(system).toContain('[Context note: some material was left out to fit the token budget.]')
  })

  test('bad options are a ValidationError naming the option; unknown keys too', () => {
    expect(() => contextkitMiddleware({} as never)).toThrow(ValidationError)
    expect(() => contextkitMiddleware({ middleware: [], budgetTokens: -1 })).toThrow(/budgetTokens/)
    expect(() => contextkitMiddleware({ middleware: [], budget: 5 } as never)).toThrow(/budget/)
  })
})
