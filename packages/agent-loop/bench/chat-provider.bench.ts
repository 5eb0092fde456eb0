import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getModelInfo } from '@contextkit/core'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import { openAICompatibleCompletionsProvider } from '../src/completions/completions-provider.js'
import { openAIChatProvider } from '../src/openai/chat-provider.js'
import type { ModelProvider, ProviderRequest } from '../src/provider/contract.js'

// The same 64 KB reply in 4,096 SSE events of 16 characters, as each API shapes its chunks, from
// one loopback server: the per-event cost of the two providers side by side.
const reply = 'The quick brown fox jumps over the lazy dog. '.repeat(1500).slice(0, 65_536)
const pieces: string[] = []
for (let i = 0; i < reply.length; i += 16) pieces.push(reply.slice(i, i + 16))
const sse = (chunks: unknown[]) =>
  `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`
const completionsBody = sse([
  ...pieces.map((text) => ({ choices: [{ text, index: 0, finish_reason: null }] })),
  { choices: [{ text: '', index: 0, finish_reason: 'stop' }] },
])
const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' }
const chatBody = sse([
  ...pieces.map((content) => ({
    ...base,
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  })),
  { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
])
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end(req.url?.endsWith('/chat/completions') ? chatBody : completionsBody)
  })
})
let baseURL = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const request: ProviderRequest = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  system: [],
  prompt: '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  stopSequences: [],
  cacheMarkersApplied: 0,
  warnings: [],
  model: getModelInfo('qwen2.5-7b'),
  maxTokens: 20_000,
}

async function drain(provider: ModelProvider): Promise<void> {
  let chars = 0
  for await (const e of provider.stream(request, { signal: new AbortController().signal })) {
    if (e.type === 'text-delta') chars += e.text.length
    if (e.type === 'error') throw e.error
  }
  if (chars !== reply.length) throw new Error(`got ${chars} chars`)
}

const lines = (body: string) =>
  body
    .split('\n\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => l.slice(6))
const chatLines = lines(chatBody)
const completionsLines = lines(completionsBody)

describe('a 64 KB reply in 4,096 SSE events over loopback: chat vs completions provider', () => {
  bench('openAIChatProvider (chat.completion.chunk deltas)', () =>
    drain(openAIChatProvider({ baseURL })),
  )
  bench('openAICompatibleCompletionsProvider (text completion chunks, stop scan)', () =>
    drain(openAICompatibleCompletionsProvider({ baseURL })),
  )
  // the floor under each: only JSON.parse of its chunks (a chat chunk carries id, object, created
  // and model in every event, so it is ~1.8× the bytes of a completion chunk)
  bench('floor: JSON.parse of the 4,097 chat chunks', () => {
    for (const l of chatLines) JSON.parse(l)
  })
  bench('floor: JSON.parse of the 4,097 completion chunks', () => {
    for (const l of completionsLines) JSON.parse(l)
  })
})
