import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type AnthropicEmulator, DEFAULT_MODELS, startAnthropicEmulator } from './index.js'

/** One rule: a request (through the official SDK) and the API's answer to it. */
interface Case {
  rule: string
  body: Record<string, unknown>
  headers?: Record<string, string>
  /** Run against the emulator started with `strict: true`. */
  strict?: boolean
  status: number
  type?: string
  message?: string | RegExp
}

const user = (content: unknown) => ({ role: 'user', content })
const assistant = (content: unknown) => ({ role: 'assistant', content })
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  input_schema: { type: 'object' },
  ...extra,
})
const thinking = (budget_tokens: number) => ({ type: 'enabled', budget_tokens })
const FORCED = 'Thinking may not be enabled when tool_choice forces tool use.'
const NOT_EMPTY =
  'messages.1: all messages must have non-empty content except for the optional final assistant message'

const cases: Case[] = [
  // empty and whitespace-only content
  {
    rule: 'empty text block',
    body: { messages: [user([{ type: 'text', text: '' }])] },
    status: 400,
    message: 'messages: text content blocks must be non-empty',
  },
  {
    rule: 'empty text block inside a tool_result',
    body: {
      messages: [
        user('go'),
        assistant([{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }]),
        user([
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '' }] },
        ]),
      ],
      tools: [tool('f')],
    },
    status: 400,
    message: 'messages: text content blocks must be non-empty',
  },
  {
    rule: 'empty system text block',
    body: { system: [{ type: 'text', text: '' }], messages: [user('hi')] },
    status: 400,
    message: 'system: text content blocks must be non-empty',
  },
  {
    rule: 'whitespace-only text',
    body: { messages: [user(' \n\t')] },
    status: 400,
    message: 'messages: text content blocks must contain non-whitespace text',
  },
  {
    rule: 'whitespace-only block beside real text is accepted',
    body: {
      messages: [
        user([
          { type: 'text', text: ' ' },
          { type: 'text', text: 'real' },
        ]),
      ],
    },
    status: 200,
  },
  {
    rule: 'empty string content',
    body: { messages: [user('hi'), assistant(''), user('again')] },
    status: 400,
    message: NOT_EMPTY,
  },
  {
    rule: 'empty content array',
    body: { messages: [user('hi'), assistant([]), user('again')] },
    status: 400,
    message: NOT_EMPTY,
  },
  {
    rule: 'empty content array as the final assistant turn is accepted',
    body: { messages: [user('hi'), assistant([])] },
    status: 200,
  },
  // thinking
  {
    rule: 'budget_tokens below 1,024',
    body: { max_tokens: 4000, thinking: thinking(1000), messages: [user('hi')] },
    status: 400,
    message: 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
  },
  {
    rule: 'budget_tokens not below max_tokens',
    body: { max_tokens: 2048, thinking: thinking(2048), messages: [user('hi')] },
    status: 400,
    message:
      '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size',
  },
  {
    rule: 'budget_tokens above max_tokens is fine with interleaved thinking and tools',
    body: {
      max_tokens: 2048,
      thinking: thinking(4096),
      tools: [tool('f')],
      messages: [user('hi')],
    },
    headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
    status: 200,
  },
  {
    rule: 'tool_choice any while thinking is enabled',
    body: {
      max_tokens: 4000,
      thinking: thinking(1024),
      tools: [tool('f')],
      tool_choice: { type: 'any' },
      messages: [user('hi')],
    },
    status: 400,
    message: FORCED,
  },
  {
    rule: 'tool_choice naming a tool while adaptive thinking is on',
    body: {
      model: 'claude-sonnet-5-5',
      thinking: { type: 'adaptive' },
      tools: [tool('f')],
      tool_choice: { type: 'tool', name: 'f' },
      messages: [user('hi')],
    },
    status: 400,
    message: FORCED,
  },
  {
    rule: 'forced tool_choice on a model whose thinking is always on',
    body: {
      model: 'claude-fable-5-1',
      tools: [tool('f')],
      tool_choice: { type: 'any' },
      messages: [user('hi')],
    },
    status: 400,
    message: FORCED,
  },
  {
    rule: 'tool_choice auto with thinking is accepted',
    body: {
      max_tokens: 4000,
      thinking: thinking(1024),
      tools: [tool('f')],
      tool_choice: { type: 'auto' },
      messages: [user('hi')],
    },
    status: 200,
  },
  {
    rule: 'thinking turned off on a model whose thinking is always on',
    body: { model: 'claude-fable-5-1', thinking: { type: 'disabled' }, messages: [user('hi')] },
    status: 400,
    message:
      "thinking.type: 'disabled' is not supported by claude-fable-5-1: its thinking is always on",
  },
  {
    rule: 'a thinking type the model lacks',
    body: { thinking: { type: 'adaptive' }, messages: [user('hi')] },
    status: 400,
    message: "thinking.type: 'adaptive' is not supported by claude-haiku-4-5",
  },
  // temperature
  {
    rule: 'temperature above 1',
    body: { temperature: 1.5, messages: [user('hi')] },
    status: 400,
    message: 'temperature: Input should be less than or equal to 1',
  },
  {
    rule: 'temperature below 0',
    body: { temperature: -0.1, messages: [user('hi')] },
    status: 400,
    message: 'temperature: Input should be greater than or equal to 0',
  },
  {
    rule: 'temperature 0 and 1 are accepted',
    body: { temperature: 1, messages: [user('hi')] },
    status: 200,
  },
  // tools
  {
    rule: 'tool name with a dot',
    body: { tools: [tool('ok'), tool('fs.read')], messages: [user('hi')] },
    status: 400,
    message: "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
  },
  {
    rule: 'tool name longer than 64',
    body: { tools: [tool('x'.repeat(65))], messages: [user('hi')] },
    status: 400,
    message: "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
  },
  {
    rule: 'tool without input_schema',
    body: { tools: [{ name: 'f', description: 'no schema' }], messages: [user('hi')] },
    status: 400,
    message: 'tools.0.custom.input_schema: Field required',
  },
  {
    rule: 'duplicate tool names',
    body: { tools: [tool('f'), tool('f', { description: 'again' })], messages: [user('hi')] },
    status: 400,
    message: 'tools: Tool names must be unique.',
  },
  // context window
  {
    rule: 'prompt longer than the context window',
    body: { model: 'tiny', messages: [user('word '.repeat(100))] },
    status: 400,
    message: /^prompt is too long: \d+ tokens > 60 maximum$/,
  },
  // threads
  {
    rule: 'thread without the threads beta',
    body: { thread: { type: 'create' }, messages: [user('hi')] },
    status: 400,
    message: 'thread: Extra inputs are not permitted',
  },
  // strict
  {
    rule: 'strict: unknown top-level field',
    body: { messages: [user('hi')], frobnicate: true },
    strict: true,
    status: 400,
    message: 'frobnicate: Extra inputs are not permitted',
  },
  {
    rule: 'strict: unknown anthropic-beta value',
    body: { messages: [user('hi')] },
    headers: { 'anthropic-beta': 'prompt-caching-2024-07-31,time-travel-2030-01-01' },
    strict: true,
    status: 400,
    message:
      'Unexpected value(s) `time-travel-2030-01-01` for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or try again without the header.',
  },
  {
    rule: 'strict: known fields, known betas and extraBetas are accepted',
    body: { messages: [user('hi')], temperature: 0.5, metadata: { user_id: 'u' } },
    headers: { 'anthropic-beta': 'context-1m-2025-08-07, my-beta-1' },
    strict: true,
    status: 200,
  },
  {
    rule: 'lenient (default): unknown fields and betas pass',
    body: { messages: [user('hi')], frobnicate: true },
    headers: { 'anthropic-beta': 'time-travel-2030-01-01' },
    status: 200,
  },
]

let lenient: AnthropicEmulator
let strict: AnthropicEmulator
beforeAll(async () => {
  const models = [...DEFAULT_MODELS, { id: 'tiny', maxInputTokens: 60, maxTokens: 100 }]
  lenient = await startAnthropicEmulator({ script: () => 'fine', models })
  strict = await startAnthropicEmulator({
    script: () => 'fine',
    models,
    strict: true,
    extraBetas: ['my-beta-1'],
  })
})
afterAll(async () => {
  await lenient.close()
  await strict.close()
})

function clientFor(emu: AnthropicEmulator): Anthropic {
  return new Anthropic({ apiKey: 'test', baseURL: emu.url, maxRetries: 0 })
}

describe('validation like the real API (one case per rule)', () => {
  test.each(cases.map((c) => [c.rule, c] as const))('%s', async (_rule, c) => {
    const emu = c.strict ? strict : lenient
    const before = emu.requests.length
    const params = { model: 'claude-haiku-4-5', max_tokens: 100, ...c.body }
    const result = await clientFor(emu)
      .messages.create(params as never, { headers: c.headers ?? {} })
      .then(
        (message) => ({ status: 200, message }),
        (error: unknown) => {
          if (!(error instanceof Anthropic.APIError)) throw error
          return {
            status: error.status,
            body: error.error as { error: { type: string; message: string } },
          }
        },
      )
    expect(emu.requests.length - before).toBe(1)
    expect(result.status).toBe(c.status)
    if (c.status === 200) return
    const error = (result as { body: { error: { type: string; message: string } } }).body.error
    expect(error.type).toBe(c.type ?? 'invalid_request_error')
    if (typeof c.message === 'string') expect(error.message).toBe(c.message)
    else expect(error.message).toMatch(c.message!)
  })

  test('"prompt is too long" counts like count_tokens', async () => {
    const client = clientFor(lenient)
    const messages = [{ role: 'user' as const, content: 'word '.repeat(100) }]
    const { input_tokens } = await client.messages.countTokens({ model: 'tiny', messages })
    const error: unknown = await client.messages
      .create({ model: 'tiny', max_tokens: 10, messages })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as { error: { error: { message: string } } }).error.error.message).toBe(
      `prompt is too long: ${input_tokens} tokens > 60 maximum`,
    )
    // one token under the limit is fine
    const fits = 'w'.repeat((60 - 3) * 4)
    const ok = await client.messages.create({
      model: 'tiny',
      max_tokens: 10,
      messages: [{ role: 'user', content: fits }],
    })
    expect(ok.stop_reason).toBe('end_turn')
  })

  test('strict mode checks count_tokens fields too', async () => {
    const res = await fetch(`${strict.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: {
        'x-api-key': 'k',
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 5, messages: [user('hi')] }),
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'max_tokens: Extra inputs are not permitted',
    )
  })
})

describe('endpoints the emulator does not emulate', () => {
  test('batches and files answer 404 saying they are not emulated', async () => {
    const client = clientFor(lenient)
    const batch = await client.messages.batches
      .create({
        requests: [
          {
            custom_id: 'a',
            params: { model: 'claude-haiku-4-5', max_tokens: 5, messages: [user('hi') as never] },
          },
        ],
      })
      .catch((e: unknown) => e)
    const files = await client.beta.files.list().catch((e: unknown) => e)
    for (const [error, route] of [
      [batch, 'POST /v1/messages/batches'],
      [files, 'GET /v1/files'],
    ] as const) {
      expect(error).toBeInstanceOf(Anthropic.NotFoundError)
      const body = (error as InstanceType<typeof Anthropic.NotFoundError>).error as {
        error: { type: string; message: string }
      }
      expect(body.error.type).toBe('not_found_error')
      expect(body.error.message).toContain(`${route} is not emulated`)
    }
  })
})
