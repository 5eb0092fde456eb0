import { describe, expect, test } from 'vitest'
import { ValidationError } from './errors.js'
import { getModelInfo, ModelRegistry, UNKNOWN_MODEL_DEFAULTS } from './models.js'

describe('getModelInfo', () => {
  test('Claude 4.6 and later reject prefill; haiku 4.5 and earlier accept it', () => {
    expect(getModelInfo('claude-opus-4-6').supportsPrefill).toBe(false)
    expect(getModelInfo('claude-sonnet-4-6').supportsPrefill).toBe(false)
    expect(getModelInfo('claude-haiku-4-5').supportsPrefill).toBe(true)
    expect(getModelInfo('claude-haiku-4-5-20251001').supportsPrefill).toBe(true)
    expect(getModelInfo('claude-3-5-haiku-20241022').supportsPrefill).toBe(true)
  })

  test('a dated id matches its family entry, a newer minor version does not', () => {
    const dated = getModelInfo('claude-opus-4-20250514')
    expect(dated.known).toBe(true)
    expect(dated.maxOutput).toBe(32_000)
    const newer = getModelInfo('claude-opus-4-9')
    expect(newer.known).toBe(false)
    expect(newer.supportsPrefill).toBe(false)
    expect(newer.family).toBe('opus')
  })

  test('unlisted later versions are treated as no-prefill with a pessimistic tokenizer', () => {
    const next = getModelInfo('claude-sonnet-5')
    expect(next).toMatchObject({ known: false, supportsPrefill: false, supportsThinking: true })
    expect(getModelInfo('claude-opus-5-1').tokenizerFactor).toBeGreaterThanOrEqual(1.35)
  })

  test('the later Opus tokenizer counts up to ~1.35x more', () => {
    expect(getModelInfo('claude-opus-4-7').tokenizerFactor).toBe(1.35)
    expect(getModelInfo('claude-opus-4-6').tokenizerFactor).toBe(1)
  })

  test('cloud spellings resolve to the same entry, keeping the caller id', () => {
    const bedrock = getModelInfo('us.anthropic.claude-sonnet-4-5-20250929-v1:0')
    expect(bedrock).toMatchObject({
      id: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      known: true,
    })
    expect(bedrock.supportsPrefill).toBe(true)
    expect(getModelInfo('claude-opus-4-6@20260205').supportsPrefill).toBe(false)
  })

  test('unknown ids get conservative defaults and known: false', () => {
    const info = getModelInfo('my-local-llama')
    expect(info).toEqual({ id: 'my-local-llama', known: false, ...UNKNOWN_MODEL_DEFAULTS })
  })

  test('overrides apply last and are validated', () => {
    expect(getModelInfo('claude-haiku-4-5', { supportsPrefill: false }).supportsPrefill).toBe(false)
    expect(() => getModelInfo('claude-haiku-4-5', { contextWindow: -1 })).toThrow(ValidationError)
  })
})

describe('ModelRegistry', () => {
  test('register adds and overrides entries; longest prefix wins', () => {
    const registry = new ModelRegistry()
    registry.register('qwen3', { family: 'qwen', contextWindow: 32_768, supportsPrefill: true })
    registry.register('qwen3-coder', { contextWindow: 262_144 })
    expect(registry.get('qwen3-8b')).toMatchObject({ known: true, contextWindow: 32_768 })
    expect(registry.get('qwen3-coder-30b')).toMatchObject({ known: true, contextWindow: 262_144 })
    registry.register('claude-haiku-4-5', { supportsPrefill: false })
    expect(registry.get('claude-haiku-4-5').supportsPrefill).toBe(false)
    // the default registry is untouched
    expect(getModelInfo('claude-haiku-4-5').supportsPrefill).toBe(true)
  })

  test('an empty registry knows nothing; invalid entries are rejected', () => {
    const registry = new ModelRegistry({})
    expect(registry.get('claude-opus-4-5').known).toBe(false)
    expect(() => registry.register('x', { maxOutput: 0 })).toThrow(/Invalid model entry "x"/)
  })
})
