import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getModelInfo, type ModelInfo, textMessage, ValidationError } from '@contextkit/core'
import { ChatMLFormatter, CompletionsFormatter, NativeFormatter } from '@contextkit/formatters'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { ModelProvider, ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import { runAgent } from '../run/run-agent.js'
import { collect, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import {
  type OpenAICompatibleCompletionsProviderOptions,
  openAICompatibleCompletionsProvider,
} from './completions-provider.js'

/** A local base model as the capability table guesses it (unknown id: no prefill, 100K context). */
const qwen: ModelInfo = getModelInfo('qwen2.5-7b-base')

async function emulated(
  script: Script,
  options: Partial<OpenAICompatibleCompletionsProviderOptions> = {},
) {
  const emulator = await startAnthropicEmulator({ script })
  onCleanup(() => emulator.close())
  const provider = openAICompatibleCompletionsProvider({
    baseURL: `${emulator.url}/v1`,
    ...options,
  })
  const bodies = () =>
    emulator.requests
      .filter((r) => r.path === '/v1/completions')
      .map((r) => r.body as Record<string, unknown>)
  return { emulator, provider, bodies }
}

/** A raw HTTP server on 127.0.0.1 answering every request with `handler`. */
async function rawServer(
  handler: (res: ServerResponse, req: IncomingMessage) => void,
): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on('end', () => handler(res, req))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

function sse(res: ServerResponse, lines: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  for (const line of lines) res.write(line)
  res.end()
}

const request = (over: Partial<ProviderRequest> = {}): ProviderRequest => ({
  messages: [],
  system: [],
  prompt: '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  stopSequences: ['<|im_end|>', '<|endoftext|>'],
  cacheMarkersApplied: 0,
  warnings: [],
  model: qwen,
  maxTokens: 100,
  ...over,
})

async function events(provider: ModelProvider, req = request(), signal?: AbortSignal) {
  const out: ProviderEvent[] = []
  for await (const e of provider.stream(req, { signal: signal ?? new AbortController().signal }))
    out.push(e)
  return out
}

function errorOf(out: ProviderEvent[]): ProviderError {
  const last = out.at(-1)
  expect(last?.type).toBe('error')
  const error = (last as Extract<ProviderEvent, { type: 'error' }>).error
  expect(ProviderError.isInstance(error)).toBe(true)
  return error
}

const textOf = (out: ProviderEvent[]) =>
  out.map((e) => (e.type === 'text-delta' ? e.text : '')).join('')

let weatherRuns = 0
const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => {
    weatherRuns++
    return { city, sky: 'sunny' }
  },
})

describe('openAICompatibleCompletionsProvider against testkit /v1/completions', () => {
  test('a base-model run: a ChatML (Qwen) tool call, its result fed back, the answer', async () => {
    weatherRuns = 0
    const { provider, bodies } = await emulated(
      [
        'I will check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\nnot part of the reply',
        (req) =>
          req.lastUserText.includes(
            '<tool_response>\n{"city":"Paris","sky":"sunny"}\n</tool_response>',
          )
            ? 'It is sunny in Paris.<|im_end|>'
            : 'the tool result is missing',
      ],
      { model: 'qwen2.5-7b' },
    )
    const run = runAgent({
      provider,
      model: qwen,
      formatter: new ChatMLFormatter(),
      system: 'You are a weather assistant.',
      messages: [textMessage('user', 'Weather in Paris?')],
      tools: [weather],
    })
    const all = await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    // the server cut at <|im_end|> and said finish_reason "stop": the model ended its turn
    expect(result.stopReason).toBe('end_turn')
    expect(result.text).toBe('It is sunny in Paris.')
    expect(weatherRuns).toBe(1)
    const call = result.messages[0]?.content.find((b) => b.type === 'tool_call')
    expect(call).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } })
    expect(all.filter((e) => e.type === 'tool-call')).toHaveLength(1)
    const [first, second] = bodies()
    expect(first).toMatchObject({
      model: 'qwen2.5-7b',
      stream: true,
      max_tokens: 4096,
      stop: ['<|im_end|>', '<|endoftext|>'],
    })
    expect(String(first?.prompt)).toContain('<tools>')
    expect(String(first?.prompt).endsWith('<|im_start|>assistant\n')).toBe(true)
    expect(String(second?.prompt)).toContain('<tool_call>')
  })

  test('stop sequences the server was not sent are cut here, with stop_sequence', async () => {
    const { provider, bodies } = await emulated(['Alpha\nUser: Beta'], { maxStopSequences: 0 })
    const out = await events(provider, request({ stopSequences: ['\nUser:'] }))
    expect(bodies()[0]?.stop).toBeUndefined()
    expect(textOf(out)).toBe('Alpha')
    expect(out.at(-1)).toMatchObject({
      type: 'finish',
      stopReason: 'stop_sequence',
      stopSequence: '\nUser:',
    })
  })

  test('finish_reason length is max_tokens; stop without a named stop string is end_turn', async () => {
    const { provider } = await emulated(['x'.repeat(200), 'Done.'])
    const cut = await events(provider, request({ maxTokens: 10 }))
    expect(textOf(cut)).toBe('x'.repeat(40))
    expect(cut.at(-1)).toMatchObject({ type: 'finish', stopReason: 'max_tokens' })
    const done = await events(provider)
    expect(done.at(-1)).toMatchObject({ type: 'finish', stopReason: 'end_turn' })
  })

  test('1-byte writes: text arrives whole, across split UTF-8 characters and SSE lines', async () => {
    const { provider } = await emulated([
      { text: 'Grüße aus Köln 😀 — fin.', transport: { writeSize: 1 } },
    ])
    const out = await events(provider)
    expect(textOf(out)).toBe('Grüße aus Köln 😀 — fin.')
    expect(out.at(-1)?.type).toBe('finish')
  })

  test('a non-2xx answer is a ProviderError with the status and the server message', async () => {
    const { provider, emulator } = await emulated([
      { fault: { kind: 'http', status: 503, message: 'model is loading' } },
    ])
    const error = errorOf(await events(provider))
    expect(error).toMatchObject({ status: 503, retryable: true })
    expect(error.message).toContain('model is loading')
    expect(error.requestId).toBe(emulator.requests[0]?.requestId)
  })

  test('an error inside the stream carries the server message and type', async () => {
    const { provider } = await emulated([
      { text: 'partial answer here', fault: { kind: 'stream-error', afterEvents: 1 } },
    ])
    const out = await events(provider)
    const error = errorOf(out)
    expect(error).toMatchObject({ errorType: 'overloaded_error', status: undefined })
    expect(error.message).toContain('Overloaded')
  })

  test('a connection reset mid-stream is an incomplete_stream error', async () => {
    const { provider } = await emulated([
      { text: 'a long enough answer to cut', fault: { kind: 'reset', afterEvents: 1 } },
    ])
    expect(errorOf(await events(provider))).toMatchObject({
      errorType: 'incomplete_stream',
      retryable: true,
    })
  })

  test('a server that stops sending hits the idle timeout', async () => {
    const { provider } = await emulated(
      [{ text: 'a'.repeat(64), transport: { chunkDelayMs: 10_000 } }],
      { idleTimeoutMs: 50 },
    )
    const t0 = performance.now()
    const error = errorOf(await events(provider))
    expect(error).toMatchObject({ errorType: 'idle_timeout', retryable: true })
    expect(performance.now() - t0).toBeLessThan(5_000)
  })

  test('connection refused names the URL and the system error', async () => {
    // a port nobody listens on: bind one, then close it
    const url = await new Promise<string>((resolve) => {
      const s = createServer()
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port
        s.close(() => resolve(`http://127.0.0.1:${p}/v1`))
      })
    })
    const error = errorOf(await events(openAICompatibleCompletionsProvider({ baseURL: url })))
    expect(error).toMatchObject({ errorType: 'connection', retryable: true })
    expect(error.message).toContain(`${url}/completions`)
    expect(error.message).toContain('ECONNREFUSED')
  })

  test('a malformed SSE line and data that is not JSON are typed errors naming the line', async () => {
    const garbage = await rawServer((res) =>
      sse(res, ['data: {"choices":[{"text":"ok"}]}\n\n', 'this is not sse\n\n']),
    )
    const first = errorOf(await events(openAICompatibleCompletionsProvider({ baseURL: garbage })))
    expect(first).toMatchObject({ errorType: 'malformed_sse' })
    expect(first.message).toContain('this is not sse')
    const notJson = await rawServer((res) => sse(res, ['data: {"choices": [\n\n']))
    const second = errorOf(await events(openAICompatibleCompletionsProvider({ baseURL: notJson })))
    expect(second).toMatchObject({ errorType: 'malformed_sse' })
    expect(second.message).toContain('{\\"choices\\": [')
  })

  test('usage chunks, a vLLM stop_reason, a stream without [DONE], an API key', async () => {
    let auth: string | undefined
    const base = await rawServer((res, req) => {
      auth = req.headers.authorization
      sse(res, [
        ': keep-alive comment\n\n',
        'data: {"choices":[{"text":"Hi","finish_reason":null}]}\r\n\r\n',
        'data: {"choices":[{"text":"","finish_reason":"stop","stop_reason":"\\nUser:"}]}\n\n',
        'data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":8}}}\n\n',
      ])
    })
    const provider = openAICompatibleCompletionsProvider({ baseURL: base, apiKey: 'sk-local' })
    const out = await events(provider, request({ stopSequences: ['\nUser:'] }))
    expect(auth).toBe('Bearer sk-local')
    expect(textOf(out)).toBe('Hi')
    expect(out.at(-1)).toEqual({
      type: 'finish',
      stopReason: 'stop_sequence',
      stopSequence: '\nUser:',
      usage: { input: 12, output: 3, cacheRead: 8, cacheWrite: 0 },
    })
  })

  test('a whole JSON completion (a server that ignores stream) is read too', async () => {
    const base = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ choices: [{ text: 'Whole.', finish_reason: 'length' }] }))
    })
    const out = await events(openAICompatibleCompletionsProvider({ baseURL: base }))
    expect(textOf(out)).toBe('Whole.')
    expect(out.at(-1)).toMatchObject({ type: 'finish', stopReason: 'max_tokens' })
  })

  test('a chat-format request is refused; an abort ends the stream as aborted', async () => {
    const { provider } = await emulated([{ text: 'slow', transport: { chunkDelayMs: 5_000 } }])
    const chat = new NativeFormatter().buildMessages([textMessage('user', 'Hi')])
    const refused = errorOf(
      await events(provider, { ...chat, model: qwen, maxTokens: 10 } as ProviderRequest),
    )
    expect(refused).toMatchObject({ errorType: 'unsupported_request' })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const aborted = errorOf(await events(provider, request(), controller.signal))
    expect(aborted).toMatchObject({ errorType: 'aborted' })
  })

  test('CompletionsFormatter prompts go through the same way', async () => {
    const { provider, bodies } = await emulated(['Hello there.\nUser: more'])
    const result = await runAgent({
      provider,
      model: qwen,
      formatter: new CompletionsFormatter(),
      messages: [textMessage('user', 'Hi')],
    }).result
    expect(result.text).toBe('Hello there.')
    expect(bodies()[0]?.stop).toEqual(expect.arrayContaining(['\nUser:']))
  })

  test('options are checked', () => {
    expect(() => openAICompatibleCompletionsProvider({ baseURL: 'not a url' })).toThrow(
      ValidationError,
    )
    expect(() => openAICompatibleCompletionsProvider({ baseURL: 'ftp://127.0.0.1/v1' })).toThrow(
      ValidationError,
    )
    expect(() =>
      openAICompatibleCompletionsProvider({ baseURL: 'http://127.0.0.1/v1', idleTimeoutMs: 0 }),
    ).toThrow(ValidationError)
  })
})
