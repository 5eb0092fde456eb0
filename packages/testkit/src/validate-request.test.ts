import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type AnthropicEmulator,
  MAX_CACHE_CONTROL_BLOCKS,
  NO_PREFILL_MESSAGE,
  startAnthropicEmulator,
} from './index.js'

let emu: AnthropicEmulator
let client: Anthropic
let scriptCalls = 0
beforeAll(async () => {
  emu = await startAnthropicEmulator({
    script: () => {
      scriptCalls++
      return 'fine'
    },
  })
  client = new Anthropic({ apiKey: 'test', baseURL: emu.url, maxRetries: 2 })
})
afterAll(() => emu.close())

type Params = Anthropic.MessageCreateParamsNonStreaming

async function rejection(params: Params): Promise<InstanceType<typeof Anthropic.APIError>> {
  const before = emu.requests.length
  const err = await client.messages.create(params).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(Anthropic.APIError)
  // 4xx are not retried: exactly one request reached the server.
  expect(emu.requests.length - before).toBe(1)
  return err as InstanceType<typeof Anthropic.APIError>
}

function bodyOf(err: InstanceType<typeof Anthropic.APIError>): {
  type: string
  error: { type: string; message: string }
  request_id: string
} {
  return err.error as never
}

const user = (text: string) => ({ role: 'user' as const, content: text })
const assistant = (text: string) => ({ role: 'assistant' as const, content: text })

describe('validation like the real API', () => {
  test('no-prefill models reject a trailing assistant message with the exact message', async () => {
    const err = await rejection({
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      messages: [user('hi'), assistant('Sure')],
    })
    expect(err).toBeInstanceOf(Anthropic.BadRequestError)
    expect(bodyOf(err)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: NO_PREFILL_MESSAGE },
      request_id: err.requestID,
    })
    expect(NO_PREFILL_MESSAGE).toBe(
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    )
    // The same conversation is fine on a model that accepts prefill.
    const ok = await client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [user('hi'), assistant('Sure')],
    })
    expect(ok.content).toEqual([{ type: 'text', text: 'fine' }])
  })

  test('final assistant content ending in whitespace is a 400 (also after merging turns)', async () => {
    for (const tail of ['Sure ', 'Sure\n', 'Sure\t']) {
      const err = await rejection({
        model: 'claude-haiku-4-5',
        max_tokens: 10,
        messages: [user('hi'), assistant(tail)],
      })
      expect(err.status).toBe(400)
      expect(bodyOf(err).error.message).toBe(
        'messages: final assistant content cannot end with trailing whitespace',
      )
    }
    const merged = await rejection({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [
        user('hi'),
        assistant('a'),
        { role: 'assistant', content: [{ type: 'text', text: 'b ' }] },
      ],
    })
    expect(merged.status).toBe(400)
  })

  test('more than 4 cache_control blocks is a 400; exactly 4 is fine', async () => {
    const cc = { type: 'ephemeral' as const }
    const blocks = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        type: 'text' as const,
        text: `part ${i}`,
        cache_control: cc,
      }))
    const ok = await client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      system: blocks(2),
      messages: [{ role: 'user', content: blocks(MAX_CACHE_CONTROL_BLOCKS - 2) }],
    })
    expect(ok.stop_reason).toBe('end_turn')
    const err = await rejection({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      system: blocks(2),
      messages: [{ role: 'user', content: blocks(3) }],
    })
    expect(bodyOf(err).error).toEqual({
      type: 'invalid_request_error',
      message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    })
  })

  test('a tool_result without a matching tool_use is a 400; so is an unanswered tool_use', async () => {
    const orphan = await rejection({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [
        user('hi'),
        assistant('ok'),
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_missing', content: 'x' }],
        },
      ],
    })
    expect(bodyOf(orphan).error.type).toBe('invalid_request_error')
    expect(bodyOf(orphan).error.message).toContain('toolu_missing')
    const unanswered = await rejection({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [
        user('hi'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
        user('never mind'),
      ],
    })
    expect(bodyOf(unanswered).error.message).toContain('toolu_1')
  })

  test('an unknown model is a 404 not_found_error', async () => {
    const err = await rejection({
      model: 'claude-imaginary-9',
      max_tokens: 10,
      messages: [user('hi')],
    })
    expect(err).toBeInstanceOf(Anthropic.NotFoundError)
    expect(bodyOf(err).error).toEqual({
      type: 'not_found_error',
      message: 'model: claude-imaginary-9',
    })
  })

  test('prefill with thinking enabled must start with a thinking block; max_tokens above the model limit', async () => {
    const err = await rejection({
      model: 'claude-haiku-4-5',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [user('hi'), assistant('Sure')],
    })
    expect(bodyOf(err).error.message).toContain('thinking')
    const big = await rejection({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 9000,
      messages: [user('hi')],
    })
    expect(bodyOf(big).error.message).toMatch(/^max_tokens: 9000 > 8192/)
  })

  test('structural problems read like the API (path: problem) and never consume a script step', async () => {
    const post = async (body: unknown) => {
      const res = await fetch(`${emu.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'x-api-key': 'k',
          'anthropic-version': '2023-06-01',
          'content-type': 'application/json',
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
      return { status: res.status, body: (await res.json()) as { error: { message: string } } }
    }
    const callsBefore = scriptCalls
    expect((await post('{not json')).status).toBe(400)
    expect(
      (await post({ model: 'claude-haiku-4-5', messages: [user('x')] })).body.error.message,
    ).toBe('max_tokens: Field required')
    expect(
      (
        await post({
          model: 'claude-haiku-4-5',
          max_tokens: 5,
          messages: [{ role: 'system', content: 'x' }],
        })
      ).body.error.message,
    ).toBe("messages.0.role: Input should be 'user' or 'assistant'")
    const badBlock = await post({
      model: 'claude-haiku-4-5',
      max_tokens: 5,
      messages: [{ role: 'user', content: [{ type: 'video' }] }],
    })
    expect(badBlock.body.error.message).toMatch(/^messages\.0\.content\.0: Input tag 'video'/)
    expect(scriptCalls).toBe(callsBefore)
  })
})
