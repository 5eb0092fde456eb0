import Anthropic from '@anthropic-ai/sdk'
import { afterEach, describe, expect, test } from 'vitest'
import {
  type AnthropicEmulator,
  type AnthropicEmulatorOptions,
  ScriptExhaustedError,
  ScriptFailedError,
  startAnthropicEmulator,
} from './index.js'

const open: AnthropicEmulator[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()))
})

async function setup(options: AnthropicEmulatorOptions, maxRetries = 0, timeout?: number) {
  const emu = await startAnthropicEmulator(options)
  open.push(emu)
  const client = new Anthropic({
    apiKey: 'test',
    baseURL: emu.url,
    maxRetries,
    ...(timeout ? { timeout } : {}),
  })
  return { emu, client }
}

const params = {
  model: 'claude-haiku-4-5',
  max_tokens: 100,
  messages: [{ role: 'user' as const, content: 'hi' }],
}
const retryCounts = (emu: AnthropicEmulator) =>
  emu.requests.map((r) => r.headers['x-stainless-retry-count'])

describe('HTTP faults and SDK retries', () => {
  test('529 then 429 then success: the SDK retries, counted by x-stainless-retry-count', async () => {
    const { emu, client } = await setup(
      {
        script: [
          { fault: { kind: 'http', status: 529, retryAfterMs: 5 } },
          { fault: { kind: 'http', status: 429, retryAfterMs: 5, retryAfter: 0 } },
          'finally',
        ],
      },
      2,
    )
    const m = await client.messages.create(params)
    expect(m.content).toEqual([{ type: 'text', text: 'finally' }])
    expect(retryCounts(emu)).toEqual(['0', '1', '2'])
    expect(emu.requests.map((r) => r.status)).toEqual([529, 429, 200])
  })

  test('retries give up after maxRetries with the typed SDK error and the API error body', async () => {
    const fault = { kind: 'http' as const, status: 500, retryAfterMs: 2 }
    const { emu, client } = await setup({ script: [{ fault }, { fault }, { fault }, 'unused'] }, 1)
    const err = await client.messages.create(params).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Anthropic.InternalServerError)
    const api = err as InstanceType<typeof Anthropic.InternalServerError>
    expect(api.status).toBe(500)
    expect(api.error).toMatchObject({ type: 'error', error: { type: 'api_error' } })
    expect(api.requestID).toBe(emu.requests[1]?.requestId)
    expect(retryCounts(emu)).toEqual(['0', '1'])
    expect(emu.remainingSteps).toBe(2)
  })

  test('x-should-retry: false stops the SDK from retrying a 529', async () => {
    const { emu, client } = await setup(
      {
        script: [
          { fault: { kind: 'http', status: 529, shouldRetry: false, message: 'Busy' } },
          'never',
        ],
      },
      3,
    )
    const err = await client.messages.create(params).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Anthropic.APIError)
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(529)
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'overloaded_error', message: 'Busy' },
    })
    expect(emu.requests).toHaveLength(1)
  })

  test('x-should-retry: true makes even a 400 retried; the retry headers are sent verbatim', async () => {
    const retryable400 = {
      kind: 'http' as const,
      status: 400,
      shouldRetry: true,
      retryAfterMs: 3,
      retryAfter: 1,
    }
    const { emu, client } = await setup(
      { script: [{ fault: retryable400 }, { fault: retryable400 }, 'ok'] },
      1,
    )
    const res = await fetch(`${emu.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(params),
    })
    expect(res.status).toBe(400)
    expect(res.headers.get('retry-after-ms')).toBe('3')
    expect(res.headers.get('retry-after')).toBe('1')
    expect(res.headers.get('x-should-retry')).toBe('true')
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
      request_id: res.headers.get('request-id'),
    })
    const m = await client.messages.create(params)
    expect(m.content).toEqual([{ type: 'text', text: 'ok' }])
    expect(retryCounts(emu)).toEqual([undefined, '0', '1'])
    expect(emu.requests.map((r) => r.status)).toEqual([400, 400, 200])
  })
})

describe('stream faults', () => {
  test('event: error after N events surfaces as an APIError and is not retried', async () => {
    const { emu, client } = await setup(
      {
        script: [
          {
            text: 'partial answer that never finishes',
            fault: { kind: 'stream-error', afterEvents: 4 },
          },
        ],
      },
      2,
    )
    const stream = client.messages.stream(params)
    const texts: string[] = []
    stream.on('text', (t) => texts.push(t))
    const err = await stream.finalMessage().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Anthropic.APIError)
    const api = err as InstanceType<typeof Anthropic.APIError>
    expect(api.status).toBeUndefined()
    expect(api.error).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    })
    // message_start, ping, content_block_start, one text_delta: then the error.
    expect(texts).toEqual(['partial answer t'])
    expect(emu.requests).toHaveLength(1)
  })

  test('create({ stream: true }) iteration throws on the mid-stream error too', async () => {
    const { client } = await setup({
      script: [
        {
          text: 'x',
          fault: { kind: 'stream-error', afterEvents: 1, errorType: 'api_error', message: 'boom' },
        },
      ],
    })
    const stream = await client.messages.create({ ...params, stream: true })
    const seen: string[] = []
    const err = await (async () => {
      for await (const e of stream) seen.push(e.type)
    })().catch((e: unknown) => e)
    expect(seen).toEqual(['message_start'])
    expect(err).toBeInstanceOf(Anthropic.APIError)
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'api_error', message: 'boom' },
    })
  })

  test('a non-streaming request with a stream-error fault gets the matching HTTP status', async () => {
    const { client } = await setup({
      script: [{ text: 'x', fault: { kind: 'stream-error', afterEvents: 3 } }],
    })
    const err = await client.messages.create(params).catch((e: unknown) => e)
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(529)
  })

  test('a connection reset mid-stream becomes an error; the emulator keeps serving', async () => {
    const { emu, client } = await setup({
      script: [
        { text: 'cut short', fault: { kind: 'reset', afterEvents: 3 } },
        { fault: { kind: 'reset' } },
        'after',
      ],
    })
    const err = await client.messages
      .stream(params)
      .finalMessage()
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    const err2 = await client.messages.create(params).catch((e: unknown) => e)
    expect(err2).toBeInstanceOf(Anthropic.APIConnectionError)
    const ok = await client.messages.create(params)
    expect(ok.content).toEqual([{ type: 'text', text: 'after' }])
    expect(emu.requests.map((r) => r.status)).toEqual([200, undefined, 200])
  })

  test('1-byte writes (multi-byte UTF-8 split across writes) still parse to the same message', async () => {
    const text = 'Grüße, 世界! 🎉 ok'
    const spec = {
      thinking: 'думаю…',
      text,
      toolUse: { id: 'toolu_x', name: 'f', input: { s: 'é🎉' } },
    }
    const { client } = await setup({
      script: [spec, { ...spec, transport: { writeSize: 1 } }, spec],
    })
    const whole = await client.messages.stream(params).finalMessage()
    const bytewise = await client.messages.stream(params).finalMessage()
    const { id: _a, ...w } = whole
    const { id: _b, ...b } = bytewise
    expect(b).toEqual(w)
    expect(b.content[1]).toEqual({ type: 'text', text })
    const emu2 = await startAnthropicEmulator({ script: [spec], transport: { writeSize: 1 } })
    open.push(emu2)
    const c2 = new Anthropic({ apiKey: 'k', baseURL: emu2.url, maxRetries: 0 })
    const json = await c2.messages.create(params)
    expect(json.content).toEqual(w.content)
  })

  test('slow headers trip the SDK timeout; slow chunks arrive spaced out', async () => {
    const { emu, client } = await setup(
      {
        script: [
          { text: 'late', transport: { headersDelayMs: 400 } },
          { text: 'abcdefgh', transport: { chunkDelayMs: 25, deltaChars: 2 } },
        ],
      },
      0,
      100,
    )
    const err = await client.messages.create(params).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Anthropic.APIConnectionTimeoutError)
    // the client's 100 ms is for the late headers above; this reply's headers may be slow too on a
    // loaded machine, and the delay measured is the chunks'
    const sent = performance.now()
    const stream = client.messages.stream(params, { timeout: 30_000 })
    const times: number[] = []
    stream.on('text', () => times.push(performance.now()))
    const m = await stream.finalMessage()
    expect(m.content).toEqual([{ type: 'text', text: 'abcdefgh' }])
    expect(times).toHaveLength(4)
    // the emulator waits 25 ms between the 4 chunks, so the last arrives at least 75 ms after the
    // request was sent (the gaps seen by the client can shrink: a stalled client reads chunks
    // that queued up in one go)
    expect(times.at(-1)! - sent).toBeGreaterThanOrEqual(3 * 25)
    expect(emu.requests).toHaveLength(2)
  })
})

describe('script problems', () => {
  test('an exhausted script answers 500 without retry and records ScriptExhaustedError', async () => {
    const { emu, client } = await setup({ script: ['only one'] }, 2)
    await client.messages.create(params)
    const err = await client.messages.create(params).catch((e: unknown) => e)
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(500)
    expect(emu.requests).toHaveLength(2)
    expect(emu.failures).toHaveLength(1)
    expect(ScriptExhaustedError.isInstance(emu.failures[0])).toBe(true)
    expect(emu.failures[0]?.code).toBe('testkit_script_exhausted')
  })

  test('a throwing or invalid step is recorded as ScriptFailedError; the server survives', async () => {
    const { emu, client } = await setup({
      script: [
        () => {
          throw new Error('bug in test')
        },
        { content: [{ type: 'video' }] } as never,
        'fine',
      ],
    })
    for (let i = 0; i < 2; i++) {
      const err = await client.messages.create(params).catch((e: unknown) => e)
      expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(500)
    }
    expect((await client.messages.create(params)).content).toEqual([{ type: 'text', text: 'fine' }])
    expect(emu.failures.map((f) => f.code)).toEqual([
      'testkit_script_failed',
      'testkit_script_failed',
    ])
    expect(ScriptFailedError.isInstance(emu.failures[0])).toBe(true)
    expect((emu.failures[0]!.cause as Error).message).toBe('bug in test')
  })
})
