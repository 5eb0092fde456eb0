import Anthropic from '@anthropic-ai/sdk'
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

async function setup(options: AnthropicEmulatorOptions, maxRetries = 0) {
  const emu = await startAnthropicEmulator(options)
  open.push(emu)
  return { emu, client: new Anthropic({ apiKey: 'test', baseURL: emu.url, maxRetries }) }
}

const MODEL = 'claude-haiku-4-5'
const ask = (text: string) => [{ role: 'user' as const, content: text }]

/** What the SDK adds on its own or what differs per call, removed before comparing. */
function comparable(m: object): Record<string, unknown> {
  const { id: _id, parsed_output: _p, _request_id: _r, ...rest } = m as Record<string, unknown>
  return rest
}

describe('POST /v1/messages with the real SDK', () => {
  test('non-streaming text reply, usage, request-id and the recorded request', async () => {
    const { emu, client } = await setup({ script: ['Hello from the emulator.'] })
    const { data, response } = await client.messages
      .create({ model: MODEL, max_tokens: 64, system: 'Be brief.', messages: ask('hi') })
      .withResponse()
    expect(data.content).toEqual([{ type: 'text', text: 'Hello from the emulator.' }])
    expect(data.stop_reason).toBe('end_turn')
    expect(data.stop_sequence).toBeNull()
    expect(data.model).toBe(MODEL)
    expect(data.id).toMatch(/^msg_01/)
    expect(data.usage.output_tokens).toBe(Math.ceil('Hello from the emulator.'.length / 4))
    expect(data.usage.input_tokens).toBeGreaterThan(0)
    const requestId = response.headers.get('request-id')
    expect(requestId).toMatch(/^req_/)
    expect(emu.requests).toHaveLength(1)
    const rec = emu.requests[0]!
    expect(rec).toMatchObject({ method: 'POST', path: '/v1/messages', status: 200, requestId })
    expect(rec.headers.authorization).toBe('Bearer test')
    expect(rec.headers['anthropic-version']).toBeTruthy()
    expect(rec.headers['x-stainless-retry-count']).toBe('0')
    expect(rec.body).toMatchObject({ model: MODEL, max_tokens: 64, system: 'Be brief.' })
  })

  test('messages.stream() finalMessage equals the non-streaming result of the same script', async () => {
    const spec = {
      thinking: {
        thinking: 'The user wants weather. 🌦 Let me call the tool.',
        signature: 'sig-abc',
      },
      text: 'Checking the weather — un moment…',
      toolUse: {
        id: 'toolu_fixed',
        name: 'get_weather',
        input: { city: 'Paris', days: [1, 2], deep: { ok: true } },
      },
      usage: { cache_read_input_tokens: 120, cache_creation_input_tokens: 30 },
    }
    const { client } = await setup({ script: [spec, spec, spec] })
    const params = { model: MODEL, max_tokens: 500, messages: ask('weather?') }
    const plain = await client.messages.create(params)
    const streamed = await client.messages.stream(params).finalMessage()
    expect(comparable(streamed)).toEqual(comparable(plain))
    expect(plain.stop_reason).toBe('tool_use')
    expect(plain.usage.cache_read_input_tokens).toBe(120)
    expect(plain.usage.cache_creation_input_tokens).toBe(30)
    expect(plain.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use'])

    const raw = await client.messages.create({ ...params, stream: true })
    const events: Anthropic.RawMessageStreamEvent[] = []
    for await (const e of raw) events.push(e)
    const deltas = events.flatMap((e) => (e.type === 'content_block_delta' ? [e.delta] : []))
    expect(
      deltas
        .filter((d) => d.type === 'thinking_delta')
        .map((d) => d.thinking)
        .join(''),
    ).toBe(spec.thinking.thinking)
    const thinkingKinds = deltas.filter(
      (d) => d.type === 'thinking_delta' || d.type === 'signature_delta',
    )
    expect(thinkingKinds.at(-1)).toEqual({ type: 'signature_delta', signature: 'sig-abc' })
    const json = deltas.flatMap((d) => (d.type === 'input_json_delta' ? [d.partial_json] : []))
    expect(json[0]).toBe('')
    expect(json.length).toBeGreaterThan(2)
    expect(JSON.parse(json.join(''))).toEqual(spec.toolUse.input)
    const start = events[0]
    expect(start?.type).toBe('message_start')
    if (start?.type === 'message_start') {
      expect(start.message.content).toEqual([])
      expect(start.message.stop_reason).toBeNull()
      expect(start.message.usage.cache_read_input_tokens).toBe(120)
    }
    const last = events.at(-2)
    expect(last?.type).toBe('message_delta')
    if (last?.type === 'message_delta')
      expect(last.usage.output_tokens).toBe(plain.usage.output_tokens)
    expect(events.at(-1)?.type).toBe('message_stop')
  })

  test('tool use round trip: the script sees the tool result and answers', async () => {
    const { emu, client } = await setup({
      script: [
        { toolUse: { name: 'add', input: { a: 2, b: 3 } } },
        (req) => {
          const result = req.messages.at(-1)?.content.find((b) => b.type === 'tool_result')
          return `The sum is ${String(result?.content)}.`
        },
      ],
    })
    const tools = [
      {
        name: 'add',
        description: 'Adds two numbers',
        input_schema: {
          type: 'object' as const,
          properties: { a: { type: 'number' }, b: { type: 'number' } },
        },
      },
    ]
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      tools,
      messages: ask('2+3?'),
    })
    expect(first.stop_reason).toBe('tool_use')
    const call = first.content.find((b) => b.type === 'tool_use')
    expect(call).toMatchObject({ type: 'tool_use', name: 'add', input: { a: 2, b: 3 } })
    expect(call?.id).toMatch(/^toolu_/)
    const second = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      tools,
      messages: [
        ...ask('2+3?'),
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.id, content: '5' }] },
      ],
    })
    expect(second.content).toEqual([{ type: 'text', text: 'The sum is 5.' }])
    expect(second.stop_reason).toBe('end_turn')
    expect(emu.remainingSteps).toBe(0)
  })

  test('prefill: the reply continues the trailing assistant message and the script sees it', async () => {
    const seen: (string | undefined)[] = []
    const { client } = await setup({
      script: (req) => {
        seen.push(req.prefill)
        // Either the whole answer (the prefill is then removed) or only the continuation.
        return req.index === 1 ? ' 42.' : 'The answer is 42.'
      },
    })
    const messages = [
      ...ask('What is the answer?'),
      { role: 'assistant' as const, content: 'The answer is' },
    ]
    const whole = await client.messages.create({ model: MODEL, max_tokens: 50, messages })
    expect(whole.content).toEqual([{ type: 'text', text: ' 42.' }])
    const continuation = await client.messages.create({ model: MODEL, max_tokens: 50, messages })
    expect(continuation.content).toEqual(whole.content)
    const streamed = await client.messages
      .stream({ model: MODEL, max_tokens: 50, messages })
      .finalMessage()
    expect(streamed.content).toEqual(whole.content)
    expect(seen).toEqual(['The answer is', 'The answer is', 'The answer is'])
  })

  test('stop_sequences cut the text at the first match, streaming and not', async () => {
    const text = 'alpha beta END gamma STOP delta'
    const { client } = await setup({
      script: [text, text, { text, toolUse: { name: 't', input: {} } }],
    })
    const params = {
      model: MODEL,
      max_tokens: 50,
      messages: ask('go'),
      stop_sequences: ['STOP', 'END'],
    }
    const plain = await client.messages.create(params)
    expect(plain.content).toEqual([{ type: 'text', text: 'alpha beta ' }])
    expect(plain.stop_reason).toBe('stop_sequence')
    expect(plain.stop_sequence).toBe('END')
    const streamed = await client.messages.stream(params).finalMessage()
    expect(comparable(streamed)).toEqual(comparable(plain))
    // A cut drops the blocks after it, tool calls included.
    const withTool = await client.messages.create(params)
    expect(withTool.content).toEqual([{ type: 'text', text: 'alpha beta ' }])
    expect(withTool.stop_reason).toBe('stop_sequence')
  })

  test('count_tokens matches usage.input_tokens of the same request', async () => {
    const { emu, client } = await setup({ script: ['ok'] })
    const params = {
      model: MODEL,
      system: 'You are terse. '.repeat(20),
      messages: ask('How many tokens is this sentence, roughly?'),
    }
    const counted = await client.messages.countTokens(params)
    const reply = await client.messages.create({ ...params, max_tokens: 10 })
    expect(counted.input_tokens).toBe(reply.usage.input_tokens)
    expect(counted.input_tokens).toBeGreaterThan(75)
    expect(emu.requests.map((r) => r.path)).toEqual(['/v1/messages/count_tokens', '/v1/messages'])
  })

  test('GET /v1/models lists (with pagination) and retrieves models', async () => {
    const models = Array.from({ length: 7 }, (_, i) => ({
      id: `model-${i}`,
      supportsPrefill: i % 2 === 0,
    }))
    const { emu, client } = await setup({ script: [], models })
    const ids: string[] = []
    for await (const m of client.models.list({ limit: 3 })) ids.push(m.id)
    expect(ids).toEqual(models.map((m) => m.id))
    expect(emu.requests.filter((r) => r.path === '/v1/models')).toHaveLength(3)
    const one = await client.models.retrieve('model-4')
    expect(one).toMatchObject({ id: 'model-4', type: 'model', display_name: 'Model 4' })
    await expect(client.models.retrieve('nope')).rejects.toBeInstanceOf(Anthropic.NotFoundError)
  })

  test('thinking blocks get a generated signature when the script gives none', async () => {
    const { client } = await setup({ script: [{ thinking: 'Short thought.', text: 'Answer.' }] })
    const m = await client.messages
      .stream({ model: MODEL, max_tokens: 50, messages: ask('q') })
      .finalMessage()
    const thinking = m.content[0]
    expect(thinking?.type).toBe('thinking')
    if (thinking?.type === 'thinking') {
      expect(thinking.thinking).toBe('Short thought.')
      expect(thinking.signature.length).toBeGreaterThan(0)
    }
  })

  test('both auth styles are accepted; a missing key is a 401; apiKey pins the key', async () => {
    const { emu } = await setup({ script: ['a', 'b'], apiKey: 'sk-right' })
    const body = JSON.stringify({ model: MODEL, max_tokens: 5, messages: ask('x') })
    const post = (headers: Record<string, string>) =>
      fetch(`${emu.url}/v1/messages`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          ...headers,
        },
      })
    const viaHeader = await post({ 'x-api-key': 'sk-right' })
    expect(viaHeader.status).toBe(200)
    expect(((await viaHeader.json()) as { content: unknown }).content).toEqual([
      { type: 'text', text: 'a' },
    ])
    expect((await post({ authorization: 'Bearer sk-right' })).status).toBe(200)
    const none = await post({})
    expect(none.status).toBe(401)
    expect(await none.json()).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    })
    const wrong = await post({ 'x-api-key': 'sk-wrong' })
    expect(wrong.status).toBe(401)
    const noVersion = await fetch(`${emu.url}/v1/messages`, {
      method: 'POST',
      body,
      headers: { 'x-api-key': 'sk-right' },
    })
    expect(noVersion.status).toBe(400)
    expect(emu.remainingSteps).toBe(0)
  })

  test('concurrent requests each take exactly one step of a list script', async () => {
    const steps = Array.from({ length: 8 }, (_, i) => `answer ${i}`)
    const { emu, client } = await setup({ script: steps })
    const replies = await Promise.all(
      steps.map((_, i) =>
        i % 2 === 0
          ? client.messages.create({ model: MODEL, max_tokens: 20, messages: ask(`q${i}`) })
          : client.messages
              .stream({ model: MODEL, max_tokens: 20, messages: ask(`q${i}`) })
              .finalMessage(),
      ),
    )
    const texts = replies.map((r) => (r.content[0]?.type === 'text' ? r.content[0].text : ''))
    expect([...texts].sort()).toEqual([...steps].sort())
    expect(new Set(replies.map((r) => r.id)).size).toBe(steps.length)
    expect(emu.remainingSteps).toBe(0)
    expect(emu.failures).toEqual([])
  })
})
