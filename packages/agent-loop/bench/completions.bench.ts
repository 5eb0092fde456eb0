import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getModelInfo } from '@contextkit/core'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import { openAICompatibleCompletionsProvider } from '../src/completions/completions-provider.js'
import { StopScanner } from '../src/completions/stop-scanner.js'
import type { ProviderRequest } from '../src/provider/contract.js'

// 1 MB of model output in 16-character deltas (what a local server streams), four ChatML stops.
const STOPS = ['<|im_end|>', '<|endoftext|>', '\nUser:', '</tool_call>\n<|im_end|>']
const text = 'The quick brown fox <| jumps over the lazy dog.\n'.repeat(22_000).slice(0, 1_000_000)
const deltas: string[] = []
for (let i = 0; i < text.length; i += 16) deltas.push(text.slice(i, i + 16))

describe('StopScanner, 1 MB in 16-character chunks, 4 stop sequences', () => {
  bench('scan', () => {
    const scanner = new StopScanner(STOPS)
    let out = 0
    for (const d of deltas) out += scanner.push(d).text.length
    out += scanner.flush().text.length
    if (out !== text.length) throw new Error('text lost')
  })
  bench('baseline: concatenate the chunks', () => {
    let out = ''
    for (const d of deltas) out += d
    if (out.length !== text.length) throw new Error('text lost')
  })
})

// A loopback server streaming a 64 KB completion in 16-character SSE events (4,096 events).
const reply = text.slice(0, 65_536)
const frames = [] as string[]
for (let i = 0; i < reply.length; i += 16)
  frames.push(
    `data: ${JSON.stringify({ choices: [{ text: reply.slice(i, i + 16), finish_reason: null }] })}\n\n`,
  )
frames.push('data: {"choices":[{"text":"","finish_reason":"stop"}]}\n\n', 'data: [DONE]\n\n')
const body = frames.join('')
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end(body)
  })
})
let baseURL = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const request: ProviderRequest = {
  messages: [],
  system: [],
  prompt: '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  stopSequences: STOPS,
  cacheMarkersApplied: 0,
  warnings: [],
  model: getModelInfo('qwen2.5-7b'),
  maxTokens: 20_000,
}

describe('openAICompatibleCompletionsProvider, a 64 KB reply in 4,098 SSE events over loopback', () => {
  bench('stream it', async () => {
    const provider = openAICompatibleCompletionsProvider({ baseURL })
    let chars = 0
    for await (const e of provider.stream(request, { signal: new AbortController().signal })) {
      if (e.type === 'text-delta') chars += e.text.length
      if (e.type === 'error') throw e.error
    }
    if (chars !== reply.length) throw new Error(`got ${chars} chars`)
  })
  bench('baseline: fetch and read the same body', async () => {
    const res = await fetch(`${baseURL}/completions`, { method: 'POST', body: '{}' })
    const got = await res.text()
    if (got.length !== body.length) throw new Error('short body')
  })
})
