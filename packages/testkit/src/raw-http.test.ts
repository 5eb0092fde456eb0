import { request } from 'node:http'
import { afterEach, describe, expect, test } from 'vitest'
import {
  type AnthropicEmulator,
  type AnthropicEmulatorOptions,
  startAnthropicEmulator,
} from './index.js'

const open: AnthropicEmulator[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()))
})
async function setup(options: AnthropicEmulatorOptions) {
  const emu = await startAnthropicEmulator(options)
  open.push(emu)
  return emu
}

interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  /** Sizes of the chunks the client received. */
  chunks: number[]
}

/** A plain node:http POST that keeps the raw bytes. */
function post(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'k',
        'anthropic-version': '2023-06-01',
        ...headers,
      },
    })
    req.on('response', (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(parts).toString('utf8'),
          chunks: parts.map((p) => p.length),
        }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(typeof body === 'string' ? body : JSON.stringify(body))
  })
}

const streamBody = {
  model: 'claude-haiku-4-5',
  max_tokens: 100,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
}

describe('SSE framing on the wire', () => {
  test('event: and data: lines carry equal types, frames end with a blank line, order is the API order', async () => {
    const emu = await setup({
      script: [
        {
          thinking: 'Let me see.',
          text: 'Here you go: done.',
          toolUse: { name: 'lookup', input: { q: 'x', n: 3 } },
        },
      ],
    })
    const res = await post(emu.url, '/v1/messages', streamBody)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/)
    expect(res.headers['request-id']).toMatch(/^req_/)
    expect(res.body.endsWith('\n\n')).toBe(true)
    const frames = res.body.slice(0, -2).split('\n\n')
    const events = frames.map((f) => {
      const lines = f.split('\n')
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^event: [a-z_]+$/)
      expect(lines[1]).toMatch(/^data: \{/)
      const type = lines[0]!.slice('event: '.length)
      const data = JSON.parse(lines[1]!.slice('data: '.length)) as {
        type: string
        [k: string]: unknown
      }
      expect(data.type).toBe(type)
      return data
    })
    const types = events.map((e) => e.type)
    expect(types.slice(0, 2)).toEqual(['message_start', 'ping'])
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop'])
    // Per block: start, deltas, stop, with indexes in order.
    const blockEvents = events.filter((e) => String(e.type).startsWith('content_block'))
    const starts = blockEvents.filter((e) => e.type === 'content_block_start')
    expect(starts.map((e) => e.content_block)).toEqual([
      { type: 'thinking', thinking: '', signature: '' },
      { type: 'text', text: '' },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'lookup', input: {} },
    ])
    let open = -1
    for (const e of blockEvents) {
      if (e.type === 'content_block_start') {
        expect(open).toBe(-1)
        open = e.index as number
      } else {
        expect(e.index).toBe(open)
        if (e.type === 'content_block_stop') open = -1
      }
    }
    const deltaTypes = blockEvents
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => (e.delta as { type: string }).type)
    expect(deltaTypes.indexOf('signature_delta')).toBeGreaterThan(
      deltaTypes.lastIndexOf('thinking_delta'),
    )
    expect(deltaTypes.indexOf('signature_delta')).toBeLessThan(deltaTypes.indexOf('text_delta'))
    const start = events[0]!.message as {
      content: unknown[]
      usage: { output_tokens: number; input_tokens: number }
    }
    expect(start.content).toEqual([])
    expect(start.usage.input_tokens).toBeGreaterThan(0)
    const delta = events.at(-2)!
    expect(delta.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null })
    expect((delta.usage as { output_tokens: number }).output_tokens).toBeGreaterThanOrEqual(
      start.usage.output_tokens,
    )
  })

  test('writeSize cuts the same bytes into pieces of that size', async () => {
    const spec = { text: 'Größe 🎉 '.repeat(20) }
    const whole = await setup({ script: [spec] })
    const small = await setup({ script: [spec], transport: { writeSize: 7 } })
    const a = await post(whole.url, '/v1/messages', streamBody)
    const b = await post(small.url, '/v1/messages', streamBody)
    expect(b.body).toBe(a.body)
    expect(b.chunks.length).toBeGreaterThan(a.chunks.length)
    expect(Math.max(...b.chunks)).toBeLessThanOrEqual(7 * 4)
  })

  test('unknown routes are 404 with an API error body; oversize bodies are 413', async () => {
    const emu = await setup({ script: [], maxBodyBytes: 1000 })
    const missing = await post(emu.url, '/v1/nothing', {})
    expect(missing.status).toBe(404)
    expect(JSON.parse(missing.body)).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error' },
    })
    const big = await post(emu.url, '/v1/messages', {
      ...streamBody,
      messages: [{ role: 'user', content: 'x'.repeat(5000) }],
    })
    expect(big.status).toBe(413)
    expect(JSON.parse(big.body)).toMatchObject({ error: { type: 'request_too_large' } })
  })
})

describe('POST /v1/completions (OpenAI-compatible)', () => {
  test('prompt in, text out, cut at stop; the script sees the prompt', async () => {
    const prompts: string[] = []
    const emu = await setup({
      script: (req) => {
        prompts.push(req.lastUserText)
        expect(req.endpoint).toBe('completions')
        return 'Paris.<|im_end|>\nuser: more'
      },
    })
    const prompt = '<|im_start|>user\nCapital of France?<|im_end|>\n<|im_start|>assistant\n'
    const res = await post(emu.url, '/v1/completions', {
      model: 'qwen-base',
      prompt,
      stop: ['<|im_end|>'],
      max_tokens: 50,
    })
    expect(res.status).toBe(200)
    const body = JSON.parse(res.body)
    expect(body).toMatchObject({
      object: 'text_completion',
      model: 'qwen-base',
      choices: [{ text: 'Paris.', index: 0, finish_reason: 'stop' }],
    })
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens)
    expect(prompts).toEqual([prompt])
  })

  test('streaming sends data: lines and ends with data: [DONE]', async () => {
    const emu = await setup({
      script: ['The quick brown fox jumps over the lazy dog. STOP here'],
      transport: { deltaChars: 5 },
    })
    const res = await post(emu.url, '/v1/completions', {
      model: 'base',
      prompt: 'x',
      stop: 'STOP',
      stream: true,
    })
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/)
    const lines = res.body.split('\n\n').filter((l) => l !== '')
    expect(lines.every((l) => l.startsWith('data: '))).toBe(true)
    expect(lines.at(-1)).toBe('data: [DONE]')
    const chunks = lines
      .slice(0, -1)
      .map(
        (l) =>
          JSON.parse(l.slice(6)) as { choices: { text: string; finish_reason: string | null }[] },
      )
    expect(chunks.map((c) => c.choices[0]!.text).join('')).toBe(
      'The quick brown fox jumps over the lazy dog. ',
    )
    expect(chunks.length).toBeGreaterThan(5)
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop')
    expect(chunks.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).toBe(true)
  })

  test('bad bodies are 400 with an OpenAI-style error; faults apply', async () => {
    const emu = await setup({
      script: [{ fault: { kind: 'http', status: 429, retryAfter: 1 } }, 'x'.repeat(100)],
    })
    const bad = await post(emu.url, '/v1/completions', { model: 'm' })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.body)).toMatchObject({ error: { type: 'invalid_request_error' } })
    const limited = await post(emu.url, '/v1/completions', { model: 'm', prompt: 'p' })
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('1')
    const capped = await post(emu.url, '/v1/completions', {
      model: 'm',
      prompt: 'p',
      max_tokens: 5,
    })
    expect(JSON.parse(capped.body).choices[0]).toMatchObject({
      text: 'x'.repeat(20),
      finish_reason: 'length',
    })
  })

  test('a stream-error fault ends the completion stream with an error line and no [DONE]', async () => {
    const emu = await setup({
      script: [{ text: 'abcdefghij', fault: { kind: 'stream-error', afterEvents: 2 } }],
      transport: { deltaChars: 2 },
    })
    const res = await post(emu.url, '/v1/completions', { model: 'base', prompt: 'x', stream: true })
    const lines = res.body.split('\n\n').filter((l) => l !== '')
    expect(lines).toHaveLength(3)
    expect(JSON.parse(lines[0]!.slice(6)).choices[0].text).toBe('ab')
    expect(JSON.parse(lines[2]!.slice(6))).toEqual({
      error: { message: 'Overloaded', type: 'overloaded_error' },
    })
    expect(res.body).not.toContain('[DONE]')
  })
})
