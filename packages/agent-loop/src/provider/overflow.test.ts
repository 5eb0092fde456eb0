import Anthropic from '@anthropic-ai/sdk'
import { getModelInfo, type TurnContext } from '@contextkit/core'
import { isPrefillRejection } from '@contextkit/prefill'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { anthropicProvider } from '../anthropic/anthropic-provider.js'
import { withoutTrailingTurn } from '../call/trailing-turn.js'
import { openAIChatProvider } from '../openai/chat-provider.js'
import { onCleanup } from '../test-support.js'
import type { ModelProvider, ProviderEvent, ProviderRequest } from './contract.js'
import { ContextTooLongError, ProviderError } from './errors.js'
import { httpError } from './http-errors.js'
import { asContextTooLong, isContextTooLong } from './overflow.js'

const tooLongBody = {
  type: 'error',
  error: {
    type: 'invalid_request_error',
    message: 'prompt is too long: 208656 tokens > 200000 maximum',
  },
}

const model = { ...getModelInfo('claude-haiku-4-5'), contextWindow: 1_000 }

function request(text: string): ProviderRequest {
  return {
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    system: [],
    stopSequences: [],
    cacheMarkersApplied: 0,
    warnings: [],
    model,
    maxTokens: 100,
  }
}

async function lastError(provider: ModelProvider, req: ProviderRequest): Promise<ProviderError> {
  const out: ProviderEvent[] = []
  for await (const e of provider.stream(req, { signal: new AbortController().signal })) out.push(e)
  const last = out.at(-1)
  if (last?.type !== 'error') throw new Error(`expected an error event, got ${last?.type}`)
  return last.error
}

async function tinyEmulator() {
  const emulator = await startAnthropicEmulator({
    script: ['ok'],
    models: [{ id: 'claude-haiku-4-5', maxInputTokens: 1_000 }],
  })
  onCleanup(() => emulator.close())
  return emulator
}

describe('context too long', () => {
  test('matched narrowly: the 400 "prompt is too long" and context_length_exceeded only', () => {
    const tooLong = new ProviderError('x', {
      status: 400,
      errorType: 'invalid_request_error',
      body: tooLongBody,
    })
    expect(isContextTooLong(tooLong)).toBe(true)
    const maxTokens = new ProviderError('x', {
      status: 400,
      errorType: 'invalid_request_error',
      body: { error: { type: 'invalid_request_error', message: 'max_tokens: 9999999 > 64000' } },
    })
    expect(isContextTooLong(maxTokens)).toBe(false)
    // the same words in another status or type are not it
    expect(isContextTooLong(new ProviderError('x', { status: 413, body: tooLongBody }))).toBe(false)
    expect(
      isContextTooLong(
        new ProviderError('x', { status: 400, errorType: 'api_error', body: tooLongBody }),
      ),
    ).toBe(false)
    const openAi = new ProviderError('x', { status: 400, errorType: 'context_length_exceeded' })
    expect(isContextTooLong(openAi)).toBe(true)
    const typed = asContextTooLong(tooLong)
    expect(ContextTooLongError.isInstance(typed)).toBe(true)
    expect(typed.code).toBe('context_too_long')
    expect(typed.retryable).toBe(false)
    expect(ProviderError.isInstance(typed)).toBe(true)
    expect(asContextTooLong(maxTokens)).toBe(maxTokens)
  })

  test('the Anthropic provider (real SDK) maps the emulator 400 to context_too_long', async () => {
    const emulator = await tinyEmulator()
    const client = new Anthropic({ apiKey: 'k', baseURL: emulator.url, maxRetries: 0 })
    const error = await lastError(anthropicProvider({ client }), request('word '.repeat(2_000)))
    expect(error.code).toBe('context_too_long')
    expect(error.status).toBe(400)
  })

  test('the OpenAI chat provider maps context_length_exceeded to context_too_long', async () => {
    const emulator = await tinyEmulator()
    const provider = openAIChatProvider({
      baseURL: `${emulator.url}/v1`,
      apiKey: 'k',
      retryDelayMs: 1,
    })
    const error = await lastError(provider, request('word '.repeat(2_000)))
    expect(error.code).toBe('context_too_long')
  })

  test('the completions provider error mapping', () => {
    const error = asContextTooLong(
      httpError('http://x', 400, JSON.stringify(tooLongBody), undefined),
    )
    expect(error.code).toBe('context_too_long')
    const other = asContextTooLong(
      httpError('http://x', 400, '{"error":{"message":"bad"}}', undefined),
    )
    expect(other.code).toBe('agent_loop_provider_error')
  })

  test('the trailing-turn fallback and the prefill rejection check leave it alone', () => {
    const error = asContextTooLong(
      new ProviderError('x', {
        status: 400,
        errorType: 'invalid_request_error',
        body: tooLongBody,
      }),
    )
    const prefilled: ProviderRequest = {
      ...request('Hi'),
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: '{' }] },
      ],
    }
    const turn = { model, prefill: '{', messages: [] } as unknown as TurnContext
    expect(withoutTrailingTurn(error, turn, prefilled)).toBeUndefined()
    // the same 400 with another message is still the trailing-turn rule's
    const plain = new ProviderError('x', { status: 400, errorType: 'invalid_request_error' })
    expect(withoutTrailingTurn(plain, turn, prefilled)).toBeDefined()
    expect(isPrefillRejection(error)).toBe(false)
  })
})
