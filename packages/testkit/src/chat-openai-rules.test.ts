// /v1/chat/completions held to OpenAI's own rules and chunk shapes, read with the official
// `openai` client.
import OpenAI from 'openai'
import { afterEach, describe, expect, test } from 'vitest'
import { type AnthropicEmulator, startAnthropicEmulator } from './index.js'

let emulator: AnthropicEmulator | undefined
afterEach(async () => {
  await emulator?.close()
  emulator = undefined
})

async function client(script: Parameters<typeof startAnthropicEmulator>[0]) {
  emulator = await startAnthropicEmulator(script)
  return new OpenAI({ apiKey: 'test', baseURL: `${emulator.url}/v1`, maxRetries: 0 })
}

describe('chat requests are checked by OpenAI’s rules', () => {
  test('a whitespace-only user message and an assistant message ending in a space are accepted', async () => {
    const openai = await client({ script: ['Fine.', 'Also fine.'] })
    const a = await openai.chat.completions.create({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: '   ' }],
    })
    expect(a.choices[0]?.message.content).toBe('Fine.')
    const b = await openai.chat.completions.create({
      model: 'claude-haiku-4-5',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello there ' },
        { role: 'user', content: 'Go on' },
      ],
      temperature: 1.5,
    })
    expect(b.choices[0]?.message.content).toBe('Also fine.')
  })

  test('a tool message that answers no call is refused as OpenAI refuses it', async () => {
    const openai = await client({ script: ['never'] })
    const error = await openai.chat.completions
      .create({
        model: 'claude-haiku-4-5',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'tool', tool_call_id: 'call_x', content: 'out of nowhere' },
        ],
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(
      /messages with role 'tool' must be a response to a preceeding message with 'tool_calls'/,
    )
  })

  test('a model declared a reasoning model refuses max_tokens and takes max_completion_tokens', async () => {
    const openai = await client({
      script: ['Thought about it.'],
      models: [{ id: 'o4-mini', reasoning: true }],
    })
    const error = (await openai.chat.completions
      .create({ model: 'o4-mini', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.status).toBe(400)
    expect(error.message).toContain(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    )
    expect(error.param).toBe('max_tokens')
    expect(error.code).toBe('unsupported_parameter')
    const ok = await openai.chat.completions.create({
      model: 'o4-mini',
      max_completion_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(ok.choices[0]?.message.content).toBe('Thought about it.')
  })
})

describe('chunks as OpenAI sends them', () => {
  test('with include_usage every chunk before the last has usage: null; fingerprint, logprobs and refusal are there', async () => {
    const openai = await client({ script: ['Hello there, how are you today?', 'Whole.'] })
    const stream = await openai.chat.completions.create({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks.length).toBeGreaterThan(3)
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage?.total_tokens).toBeGreaterThan(0)
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.usage).toBeNull()
      expect(chunk.choices[0]?.logprobs).toBeNull()
    }
    for (const chunk of chunks) expect(chunk.system_fingerprint).toMatch(/^fp_/)
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null })
    const whole = await openai.chat.completions.create({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(whole.system_fingerprint).toMatch(/^fp_/)
    expect(whole.choices[0]?.logprobs).toBeNull()
    expect(whole.choices[0]?.message.refusal).toBeNull()
  })

  test('a reply of tool calls only starts with content: null', async () => {
    const openai = await client({
      script: [{ toolUse: { name: 'lookup', input: { word: 'alpha' } } }],
    })
    const stream = await openai.chat.completions.create({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: 'Look up alpha' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      stream: true,
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant', content: null })
    expect(chunks.some((c) => c.choices[0]?.delta.tool_calls?.length)).toBe(true)
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls')
  })
})
