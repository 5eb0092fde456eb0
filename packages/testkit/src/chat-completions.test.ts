import { afterEach, describe, expect, test } from 'vitest'
import {
  type AnthropicEmulator,
  type AnthropicEmulatorOptions,
  type ScriptRequest,
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

const MODEL = 'claude-haiku-4-5'

async function chat(url: string, body: Record<string, unknown>) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify(body),
  })
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() }
}

interface Chunk {
  choices: {
    delta: {
      content?: string
      reasoning_content?: string
      tool_calls?: {
        index: number
        id?: string
        function: { name?: string; arguments?: string }
      }[]
    }
    finish_reason: string | null
  }[]
  usage?: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } }
}

function chunksOf(body: string): { chunks: Chunk[]; done: boolean } {
  const lines = body.split('\n\n').filter((l) => l !== '')
  expect(lines.every((l) => l.startsWith('data: '))).toBe(true)
  const done = lines.at(-1) === 'data: [DONE]'
  const json = done ? lines.slice(0, -1) : lines
  return { chunks: json.map((l) => JSON.parse(l.slice(6)) as Chunk), done }
}

describe('POST /v1/chat/completions (OpenAI-compatible)', () => {
  test('a conversation with a tool round trip reaches the script in the Messages shape', async () => {
    const seen: ScriptRequest[] = []
    const emu = await setup({
      script: (req) => {
        seen.push(req)
        return 'It is sunny.'
      },
    })
    const res = await chat(emu.url, {
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21 C' },
      ],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
    })
    expect(res.status).toBe(200)
    const body = JSON.parse(res.text)
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: MODEL,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'It is sunny.' },
          finish_reason: 'stop',
        },
      ],
    })
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens)
    const req = seen[0]!
    expect(req.endpoint).toBe('chat')
    expect(req.system).toBe('Be brief.')
    expect(req.toolNames).toEqual(['weather'])
    expect(req.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(req.messages[1]!.content[0]).toMatchObject({
      type: 'tool_use',
      id: 'call_1',
      input: { city: 'Paris' },
    })
    expect(req.messages[2]!.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'call_1',
    })
  })

  test('streaming: text, reasoning, two tool calls interleaved by index, usage, [DONE]', async () => {
    const emu = await setup({
      script: [
        {
          thinking: 'Look both up.',
          text: 'Checking.',
          toolUse: [
            { name: 'a', input: { q: 'first question, long enough to split' } },
            { name: 'b', input: { q: 'second question, also split in pieces' } },
          ],
        },
      ],
      transport: { deltaChars: 4 },
    })
    const res = await chat(emu.url, {
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'go' }],
      tools: [
        { type: 'function', function: { name: 'a', parameters: {} } },
        { type: 'function', function: { name: 'b', parameters: {} } },
      ],
    })
    expect(res.type).toMatch(/^text\/event-stream/)
    const { chunks, done } = chunksOf(res.text)
    expect(done).toBe(true)
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta))
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Checking.')
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('Look both up.')
    const args = ['', '']
    const order: number[] = []
    const names: string[] = []
    for (const d of deltas) {
      for (const call of d.tool_calls ?? []) {
        if (call.function.name) names[call.index] = call.function.name
        args[call.index] += call.function.arguments ?? ''
        order.push(call.index)
      }
    }
    expect(names).toEqual(['a', 'b'])
    expect(JSON.parse(args[0]!)).toEqual({ q: 'first question, long enough to split' })
    expect(JSON.parse(args[1]!)).toEqual({ q: 'second question, also split in pieces' })
    // interleaved: the index changes more than once after both calls have started
    const switches = order.slice(1).filter((i, k) => i !== order[k]).length
    expect(switches).toBeGreaterThan(2)
    const finish = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean)
    expect(finish).toEqual(['tool_calls'])
    const usage = chunks.at(-1)!
    expect(usage.choices).toEqual([])
    expect(usage.usage!.prompt_tokens).toBeGreaterThan(0)
  })

  test('a repeated long prompt is read from the automatic prefix cache', async () => {
    const emu = await setup({ script: () => 'ok' })
    const long = 'All work and no play. '.repeat(1500)
    const body = { model: MODEL, messages: [{ role: 'user', content: long }], stream: false }
    const first = JSON.parse((await chat(emu.url, body)).text)
    const second = JSON.parse((await chat(emu.url, body)).text)
    expect(first.usage.prompt_tokens_details.cached_tokens).toBe(0)
    expect(second.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0)
    expect(second.usage.prompt_tokens).toBe(first.usage.prompt_tokens)
  })

  test('errors are OpenAI-shaped: bad body, unknown model, context too long, faults', async () => {
    const emu = await setup({
      models: [{ id: 'tiny', maxInputTokens: 50, maxTokens: 100 }],
      script: [{ fault: { kind: 'http', status: 429, retryAfter: 2 } }],
    })
    const bad = await chat(emu.url, { model: 'tiny', messages: [] })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.text)).toMatchObject({ error: { type: 'invalid_request_error' } })
    const unknown = await chat(emu.url, {
      model: 'nope',
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(unknown.status).toBe(404)
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 'model_not_found' } })
    const long = await chat(emu.url, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'word '.repeat(400) }],
    })
    expect(long.status).toBe(400)
    expect(JSON.parse(long.text)).toMatchObject({
      error: { type: 'invalid_request_error', code: 'context_length_exceeded' },
    })
    const limited = await chat(emu.url, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(limited.status).toBe(429)
    expect(JSON.parse(limited.text)).toMatchObject({ error: { type: 'rate_limit_error' } })
  })

  test('a stream-error fault sends an error chunk and no [DONE]', async () => {
    const emu = await setup({
      script: [{ text: 'partial answer here', fault: { kind: 'stream-error', afterEvents: 2 } }],
      transport: { deltaChars: 4 },
    })
    const res = await chat(emu.url, {
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    })
    const lines = res.text.split('\n\n').filter((l) => l !== '')
    expect(lines).toHaveLength(3)
    expect(JSON.parse(lines[2]!.slice(6))).toMatchObject({ error: { type: 'server_error' } })
  })

  test('images in user messages arrive as image blocks', async () => {
    const seen: ScriptRequest[] = []
    const emu = await setup({
      script: (req) => {
        seen.push(req)
        return 'a red dot'
      },
    })
    const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64')
    const res = await chat(emu.url, {
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          ],
        },
      ],
    })
    expect(res.status).toBe(200)
    expect(seen[0]!.messages[0]!.content[1]).toMatchObject({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: png },
    })
  })
})
