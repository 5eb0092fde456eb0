import { createAnthropic } from '@ai-sdk/anthropic'
import Anthropic from '@anthropic-ai/sdk'
import { BUILTIN_MODELS, getModelInfo, ModelRegistry, refreshModels } from '@contextkit/core'
import { generateText } from 'ai'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type AnthropicEmulator,
  DEFAULT_MODELS,
  EmulatorConfigError,
  startAnthropicEmulator,
} from './index.js'

/**
 * Core's table is the one source of model truth; testkit keeps its own copy because it must not
 * depend on core at run time. This test holds the two equal: limits, thinking mode and prefill
 * support of every served model, and every table entry is served unless listed here.
 */
const NOT_SERVED_TABLE_ENTRIES = [
  'claude-opus-4-1',
  'claude-opus-4',
  'claude-opus-4-0',
  'claude-sonnet-4',
  'claude-3-7-sonnet',
  'claude-3-5-sonnet',
  'claude-3-opus',
  'claude-3-haiku',
]

describe('DEFAULT_MODELS follow @contextkit/core BUILTIN_MODELS', () => {
  test.each(DEFAULT_MODELS.map((m) => [m.id, m] as const))('%s', (id, m) => {
    const info = getModelInfo(id)
    expect(info.known, `${id} is not in core's table`).toBe(true)
    expect({
      maxInputTokens: m.maxInputTokens,
      maxTokens: m.maxTokens,
      thinkingMode: m.thinkingMode,
      supportsPrefill: m.supportsPrefill,
    }).toEqual({
      maxInputTokens: info.contextWindow,
      maxTokens: info.maxOutput,
      thinkingMode: info.thinkingMode,
      supportsPrefill: info.supportsPrefill,
    })
  })

  test('every table entry is served, or deliberately not (retired)', () => {
    const served = DEFAULT_MODELS.map((m) => m.id)
    for (const prefix of Object.keys(BUILTIN_MODELS)) {
      if (NOT_SERVED_TABLE_ENTRIES.includes(prefix)) continue
      const hit = served.some((id) => id === prefix || id.startsWith(`${prefix}-`))
      expect(hit, `${prefix} is in core's table but testkit does not serve it`).toBe(true)
    }
  })
})

let emu: AnthropicEmulator
let client: Anthropic
beforeAll(async () => {
  emu = await startAnthropicEmulator({ script: () => 'ok' })
  client = new Anthropic({ apiKey: 'test', baseURL: emu.url, maxRetries: 0 })
})
afterAll(() => emu.close())

describe('GET /v1/models like the API', () => {
  test('each model has max_input_tokens, max_tokens and a capabilities object with every key', async () => {
    const models: Anthropic.ModelInfo[] = []
    for await (const m of client.models.list({ limit: 5 })) models.push(m)
    expect(models.map((m) => m.id)).toEqual(DEFAULT_MODELS.map((m) => m.id))
    const fable = await client.models.retrieve('claude-fable-5-1')
    expect(fable).toMatchObject({
      type: 'model',
      id: 'claude-fable-5-1',
      display_name: 'Claude Fable 5.1',
      line: 'fable',
      lifecycle: 'active',
      max_input_tokens: 1_000_000,
      max_tokens: 128_000,
    })
    expect(Object.keys(fable.capabilities ?? {}).sort()).toEqual([
      'batch',
      'citations',
      'code_execution',
      'context_management',
      'effort',
      'image_input',
      'pdf_input',
      'server_tools',
      'structured_outputs',
      'thinking',
    ])
    expect(fable.capabilities?.thinking).toEqual({
      supported: true,
      types: {
        adaptive: { supported: true },
        between_tools: { supported: false },
        disabled: { supported: false },
        enabled: { supported: false },
      },
    })
    const haiku = models.find((m) => m.id === 'claude-haiku-4-5')!
    expect(haiku.capabilities?.thinking.types.enabled.supported).toBe(true)
    expect(haiku.capabilities?.thinking.types.adaptive.supported).toBe(false)
    const old = models.find((m) => m.id === 'claude-3-5-haiku-latest')!
    expect(old.capabilities?.thinking.supported).toBe(false)
  })

  test('core refreshModels reads the answer back into the same table', async () => {
    const page = await client.models.list({ limit: 1000 })
    const registry = new ModelRegistry({})
    const { registered, skipped } = refreshModels(page, { registry })
    expect(skipped).toEqual([])
    for (const info of registered) {
      const table = getModelInfo(info.id)
      expect(info, info.id).toMatchObject({
        contextWindow: table.contextWindow,
        maxOutput: table.maxOutput,
        thinkingMode: table.thinkingMode,
        known: true,
      })
    }
  })

  test('a default Vercel AI SDK call to claude-sonnet-4-6 is accepted (it asks for 128K output)', async () => {
    const provider = createAnthropic({ apiKey: 'k', baseURL: `${emu.url}/v1` })
    const result = await generateText({ model: provider('claude-sonnet-4-6'), prompt: 'hi' })
    expect(result.text).toBe('ok')
    const sent = emu.requests.at(-1)!
    expect(sent.status).toBe(200)
    expect((sent.body as { max_tokens: number }).max_tokens).toBe(128_000)
  })

  test('model options are checked', async () => {
    await expect(
      startAnthropicEmulator({
        script: [],
        models: [{ id: 'm', thinkingMode: 'adaptive-always', supportsPrefill: true }],
      }),
    ).rejects.toSatisfy((e) => EmulatorConfigError.isInstance(e))
    await expect(
      startAnthropicEmulator({
        script: [],
        models: [{ id: 'm', thinkingMode: 'sometimes' as never }],
      }),
    ).rejects.toThrow(/thinkingMode must be one of/)
    await expect(
      startAnthropicEmulator({ script: [], models: [{ id: 'm', capabilities: [] as never }] }),
    ).rejects.toThrow(/capabilities must be an object/)
    const custom = await startAnthropicEmulator({
      script: [],
      models: [
        { id: 'm', thinkingMode: 'adaptive-always', capabilities: { batch: { supported: true } } },
      ],
    })
    try {
      const c = new Anthropic({ apiKey: 'k', baseURL: custom.url, maxRetries: 0 })
      const m = await c.models.retrieve('m')
      expect(m.capabilities?.batch).toEqual({ supported: true })
      expect(m.capabilities?.thinking.types.disabled.supported).toBe(false)
    } finally {
      await custom.close()
    }
  })
})
