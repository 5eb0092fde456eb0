import Anthropic from '@anthropic-ai/sdk'
import { getModelInfo, ModelRegistry, ValidationError } from '@contextkit/core'
import { DEFAULT_MODELS, startAnthropicEmulator } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { ProviderError } from '../provider/errors.js'
import { onCleanup } from '../test-support.js'
import { refreshModels } from './refresh-models.js'

async function served(options: Parameters<typeof startAnthropicEmulator>[0] = { script: [] }) {
  const emulator = await startAnthropicEmulator(options)
  onCleanup(() => emulator.close())
  const client = new Anthropic({ apiKey: 'test', baseURL: emulator.url, maxRetries: 0 })
  const listings = () => emulator.requests.filter((r) => r.path.startsWith('/v1/models'))
  return { emulator, client, listings }
}

describe('refreshModels from a client (GET /v1/models, every page)', () => {
  test('registers every served model with the API’s limits and thinking mode', async () => {
    const { client, listings } = await served()
    const registry = new ModelRegistry()
    const result = await refreshModels(client, { registry, pageSize: 5 })
    expect(result.skipped).toEqual([])
    expect(result.registered.map((m) => m.id)).toEqual(DEFAULT_MODELS.map((m) => m.id))
    expect(result.pages).toBe(Math.ceil(DEFAULT_MODELS.length / 5))
    expect(listings()).toHaveLength(result.pages)
    expect(listings()[1]?.query).toMatchObject({ limit: '5' })
    expect(registry.get('claude-fable-5-1')).toMatchObject({
      known: true,
      contextWindow: 1_000_000,
      maxOutput: 128_000,
      thinkingMode: 'adaptive-always',
      supportsPrefill: false,
    })
    expect(registry.get('claude-haiku-4-5')).toMatchObject({
      contextWindow: 200_000,
      maxOutput: 64_000,
      thinkingMode: 'extended',
      supportsPrefill: true,
    })
  })

  test('a model released after the table is known at once; the process-wide table is untouched', async () => {
    const { client } = await served({
      script: [],
      models: [
        {
          id: 'claude-mythos-6',
          maxInputTokens: 2_000_000,
          maxTokens: 256_000,
          thinkingMode: 'adaptive',
        },
      ],
    })
    const registry = new ModelRegistry()
    expect(registry.get('claude-mythos-6').known).toBe(false)
    const result = await refreshModels({ client, registry })
    expect(result.pages).toBe(1)
    expect(registry.get('claude-mythos-6')).toMatchObject({
      known: true,
      contextWindow: 2_000_000,
      maxOutput: 256_000,
      thinkingMode: 'adaptive',
    })
    expect(getModelInfo('claude-mythos-6').known).toBe(false)
  })

  test('a failed listing is a typed ProviderError; bad arguments a ValidationError', async () => {
    const { emulator } = await served({ script: [], apiKey: 'right' })
    const wrong = new Anthropic({ apiKey: 'wrong', baseURL: emulator.url, maxRetries: 0 })
    const error = await refreshModels(wrong, { registry: new ModelRegistry() }).catch((e) => e)
    expect(ProviderError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ status: 401, errorType: 'authentication_error' })
    expect(error.requestId).toBe(emulator.requests[0]?.requestId)
    await expect(refreshModels({} as never)).rejects.toThrow(ValidationError)
    await expect(refreshModels(wrong, { pageSize: 0 })).rejects.toThrow(ValidationError)
  })
})
