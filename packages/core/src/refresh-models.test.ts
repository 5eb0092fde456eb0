import { describe, expect, test } from 'vitest'
import { ValidationError } from './errors.js'
import { getModelInfo, ModelRegistry } from './models.js'
import { refreshModels } from './refresh-models.js'

const support = (supported: boolean) => ({ supported })

/** A model as `GET /v1/models` lists it (capabilities abridged to what matters plus one extra key). */
function apiModel(
  id: string,
  fields: {
    maxInput?: number | null
    maxTokens?: number | null
    thinking?: { adaptive: boolean; enabled: boolean; disabled: boolean } | false
    line?: string | null
  } = {},
) {
  const { thinking } = fields
  return {
    type: 'model',
    id,
    display_name: id,
    created_at: '2026-11-01T00:00:00Z',
    lifecycle: 'active',
    line: fields.line ?? null,
    max_input_tokens: fields.maxInput === undefined ? 1_000_000 : fields.maxInput,
    max_tokens: fields.maxTokens === undefined ? 128_000 : fields.maxTokens,
    capabilities: {
      batch: support(true),
      image_input: support(true),
      thinking:
        thinking === undefined
          ? undefined
          : thinking === false
            ? { supported: false, types: null }
            : {
                supported: true,
                types: {
                  adaptive: support(thinking.adaptive),
                  enabled: support(thinking.enabled),
                  disabled: support(thinking.disabled),
                  between_tools: support(false),
                },
              },
    },
  }
}

describe('refreshModels', () => {
  test('registers a new model from a GET /v1/models page so it is known at once', () => {
    const registry = new ModelRegistry()
    expect(registry.get('claude-mythos-5-2').known).toBe(false)
    const page = {
      data: [
        apiModel('claude-mythos-5-2', {
          maxInput: 2_000_000,
          maxTokens: 256_000,
          line: 'mythos',
          thinking: { adaptive: true, enabled: false, disabled: false },
        }),
      ],
      has_more: false,
      first_id: 'claude-mythos-5-2',
      last_id: 'claude-mythos-5-2',
    }
    const result = refreshModels(page, { registry })
    expect(result.skipped).toEqual([])
    expect(result.registered).toHaveLength(1)
    expect(registry.get('claude-mythos-5-2')).toEqual({
      id: 'claude-mythos-5-2',
      family: 'mythos',
      contextWindow: 2_000_000,
      maxOutput: 256_000,
      thinkingMode: 'adaptive-always',
      supportsThinking: true,
      supportsPrefill: false,
      tokenizerFactor: 1.35,
      known: true,
    })
    expect(result.registered[0]).toEqual(registry.get('claude-mythos-5-2'))
    // the process-wide registry is untouched
    expect(getModelInfo('claude-mythos-5-2').known).toBe(false)
  })

  test('maps each thinking capability to a thinking mode', () => {
    const registry = new ModelRegistry()
    refreshModels(
      [
        apiModel('claude-a-1', { thinking: { adaptive: true, enabled: true, disabled: true } }),
        apiModel('claude-b-1', { thinking: { adaptive: false, enabled: true, disabled: true } }),
        apiModel('claude-c-1', { thinking: false }),
        apiModel('claude-d-1', { thinking: { adaptive: true, enabled: false, disabled: false } }),
      ],
      { registry },
    )
    expect(registry.get('claude-a-1').thinkingMode).toBe('adaptive')
    expect(registry.get('claude-b-1').thinkingMode).toBe('extended')
    expect(registry.get('claude-c-1')).toMatchObject({
      thinkingMode: 'none',
      supportsThinking: false,
    })
    expect(registry.get('claude-d-1').thinkingMode).toBe('adaptive-always')
  })

  test('what the API leaves out keeps the table value; prefill support comes from the table', () => {
    const registry = new ModelRegistry()
    refreshModels([apiModel('claude-haiku-4-5', { maxInput: null, maxTokens: 32_000 })], {
      registry,
    })
    expect(registry.get('claude-haiku-4-5')).toMatchObject({
      contextWindow: 200_000,
      maxOutput: 32_000,
      thinkingMode: 'extended',
      supportsPrefill: true,
      family: 'haiku',
    })
    // it corrects a stale figure for a known model
    refreshModels({ data: [apiModel('claude-opus-4-7', { maxInput: 1_000_000 })] }, { registry })
    expect(registry.get('claude-opus-4-7').contextWindow).toBe(1_000_000)
  })

  test('several pages are read in order; malformed models are skipped, the rest registered', () => {
    const registry = new ModelRegistry()
    const result = refreshModels(
      [
        { data: [apiModel('claude-x-1'), { id: 'claude-y-1', max_tokens: -5 }] },
        { data: [null, { nothing: true }, apiModel('claude-z-1')] },
      ],
      { registry },
    )
    expect(result.registered.map((m) => m.id)).toEqual(['claude-x-1', 'claude-z-1'])
    expect(result.skipped).toEqual([
      { id: 'claude-y-1', reason: expect.stringMatching(/^max_tokens: /) },
      { id: undefined, reason: expect.any(String) },
      { id: undefined, reason: expect.stringMatching(/^id: /) },
    ])
  })

  test('a source or options of the wrong shape is a ValidationError', () => {
    expect(() => refreshModels('models' as never)).toThrow(ValidationError)
    expect(() => refreshModels({ items: [] } as never)).toThrow(ValidationError)
    expect(() => refreshModels([], { registry: {} as never })).toThrow(ValidationError)
  })

  test('without a registry it updates the process-wide one', () => {
    const id = 'claude-refresh-test-9'
    expect(getModelInfo(id).known).toBe(false)
    refreshModels({ data: [apiModel(id, { maxTokens: 96_000 })] })
    expect(getModelInfo(id)).toMatchObject({ known: true, maxOutput: 96_000 })
  })
})

describe('where a context window came from', () => {
  test('table, option (register), models-api (refreshModels); a patch without a window keeps it', () => {
    const registry = new ModelRegistry()
    expect(registry.windowSource('claude-haiku-4-5')).toBe('table')
    expect(registry.windowSource('some-local-model')).toBe('table')
    registry.register('claude-haiku-4-5', { maxOutput: 8_000 })
    expect(registry.windowSource('claude-haiku-4-5')).toBe('table')
    registry.register('claude-haiku-4-5', { contextWindow: 20_000 })
    expect(registry.windowSource('claude-haiku-4-5')).toBe('option')
    refreshModels({ data: [{ id: 'claude-haiku-4-5', max_input_tokens: 30_000 }] }, { registry })
    expect(registry.get('claude-haiku-4-5').contextWindow).toBe(30_000)
    expect(registry.windowSource('claude-haiku-4-5')).toBe('models-api')
    // the API leaving the window out keeps the window and its source
    refreshModels({ data: [{ id: 'claude-opus-4-5' }] }, { registry })
    expect(registry.windowSource('claude-opus-4-5')).toBe('table')
    refreshModels({ data: [{ id: 'claude-haiku-4-5', max_tokens: 1_000 }] }, { registry })
    expect(registry.windowSource('claude-haiku-4-5')).toBe('models-api')
  })
})
