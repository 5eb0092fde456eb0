import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ModelInfoSchema } from './model-info.js'
import { BUILTIN_MODELS, UNKNOWN_MODEL_DEFAULTS } from './model-table.js'
import { getModelInfo, ModelRegistry } from './models.js'

// getModelInfo answers from the default registry, which lives on globalThis so that two copies of
// core share it: when another test file of the same worker loaded the built copy first, its errors
// are that copy's classes, so they are matched by name and code rather than by `instanceof`.
const VALIDATION_ERROR = expect.objectContaining({
  name: 'ValidationError',
  code: 'validation_error',
})

describe('the built-in table (model pages, 2026-11-22)', () => {
  test.each([
    ['claude-fable-5-1', 'fable', 1_000_000, 128_000, 'adaptive-always'],
    ['claude-opus-5-5', 'opus', 1_000_000, 128_000, 'adaptive'],
    ['claude-sonnet-5-5', 'sonnet', 1_000_000, 128_000, 'adaptive'],
    ['claude-opus-5', 'opus', 1_000_000, 128_000, 'adaptive'],
    ['claude-sonnet-5', 'sonnet', 1_000_000, 128_000, 'adaptive'],
    ['claude-opus-4-6', 'opus', 1_000_000, 128_000, 'adaptive'],
    ['claude-sonnet-4-6', 'sonnet', 1_000_000, 128_000, 'adaptive'],
    ['claude-haiku-4-5', 'haiku', 200_000, 64_000, 'extended'],
  ] as const)('%s: %s, %i context, %i output, %s thinking', (id, family, ctx, out, mode) => {
    expect(getModelInfo(id)).toMatchObject({
      id,
      family,
      contextWindow: ctx,
      maxOutput: out,
      thinkingMode: mode,
      supportsThinking: true,
      known: true,
    })
    expect(getModelInfo(id).warning).toBeUndefined()
  })

  test('every entry is consistent: always-on thinking never takes a prefill', () => {
    for (const [prefix, entry] of Object.entries(BUILTIN_MODELS)) {
      expect(entry.supportsThinking, prefix).toBe(entry.thinkingMode !== 'none')
      if (entry.thinkingMode === 'adaptive-always')
        expect(entry.supportsPrefill, prefix).toBe(false)
      expect(ModelInfoSchema.safeParse({ ...entry, id: prefix, known: true }).success).toBe(true)
    }
  })

  test('Claude 4.6 and later reject prefill; haiku 4.5 and earlier accept it', () => {
    for (const id of [
      'claude-fable-5-1',
      'claude-opus-5-5',
      'claude-opus-4-6',
      'claude-sonnet-4-6',
    ]) {
      expect(getModelInfo(id).supportsPrefill, id).toBe(false)
    }
    expect(getModelInfo('claude-haiku-4-5').supportsPrefill).toBe(true)
    expect(getModelInfo('claude-haiku-4-5-20251001').supportsPrefill).toBe(true)
    expect(getModelInfo('claude-3-5-haiku-20241022').supportsPrefill).toBe(true)
    expect(getModelInfo('claude-3-5-haiku-20241022').thinkingMode).toBe('none')
  })

  test('a dated id matches its entry, a newer minor version does not', () => {
    const dated = getModelInfo('claude-opus-4-20250514')
    expect(dated).toMatchObject({ known: true, maxOutput: 32_000 })
    expect(getModelInfo('claude-fable-5-1-20261001')).toMatchObject({
      known: true,
      family: 'fable',
    })
    expect(getModelInfo('claude-opus-5-20260301').known).toBe(true)
    expect(getModelInfo('claude-opus-5-5').maxOutput).toBe(128_000)
  })

  test('the later tokenizer counts up to ~1.35x more', () => {
    expect(getModelInfo('claude-opus-4-7').tokenizerFactor).toBe(1.35)
    expect(getModelInfo('claude-fable-5-1').tokenizerFactor).toBe(1.35)
    expect(getModelInfo('claude-opus-4-6').tokenizerFactor).toBe(1)
  })

  test('cloud spellings resolve to the same entry, keeping the caller id', () => {
    const bedrock = getModelInfo('us.anthropic.claude-sonnet-4-5-20250929-v1:0')
    expect(bedrock).toMatchObject({
      id: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      known: true,
      supportsPrefill: true,
    })
    expect(getModelInfo('claude-opus-4-6@20260205')).toMatchObject({
      known: true,
      supportsPrefill: false,
    })
    expect(getModelInfo('anthropic.claude-fable-5-1-v1:0').thinkingMode).toBe('adaptive-always')
  })
})

describe('ids the table does not know', () => {
  test('a new family gets the newest known model limits, known: false and a warning', () => {
    const info = getModelInfo('claude-mythos-5-1')
    expect(info).toMatchObject({
      family: 'mythos',
      contextWindow: 1_000_000,
      maxOutput: 128_000,
      supportsPrefill: false,
      known: false,
    })
    expect(info.warning).toMatch(/family not in the model table \(mythos\).*claude-opus-5-5/)
    // the old fallback (4,096 output tokens) is gone for Claude ids
    const registry = new ModelRegistry({ 'claude-opus-4-7': BUILTIN_MODELS['claude-opus-4-7']! })
    const fable = registry.get('claude-fable-5-1')
    expect(fable).toMatchObject({ known: false, family: 'fable', maxOutput: 128_000 })
    expect(fable.warning).toContain('claude-opus-4-7')
  })

  test('a newer version of a known family gets the closest version at or below it', () => {
    const newer = getModelInfo('claude-opus-4-9')
    expect(newer).toMatchObject({ known: false, family: 'opus', supportsPrefill: false })
    expect(newer.contextWindow).toBe(BUILTIN_MODELS['claude-opus-4-7']!.contextWindow)
    expect(newer.warning).toContain('claude-opus-4-7')
    expect(getModelInfo('claude-opus-5-1')).toMatchObject({
      known: false,
      contextWindow: 1_000_000,
    })
    expect(getModelInfo('claude-opus-5-1').tokenizerFactor).toBeGreaterThanOrEqual(1.35)
    expect(getModelInfo('claude-fable-5-2')).toMatchObject({
      known: false,
      thinkingMode: 'adaptive-always',
      supportsPrefill: false,
    })
  })

  test('a guessed Claude id from 4.6 on never takes a prefill, even from a family that did', () => {
    const haiku55 = getModelInfo('claude-haiku-5-5')
    expect(haiku55).toMatchObject({ known: false, family: 'haiku', supportsPrefill: false })
    expect(haiku55.maxOutput).toBe(64_000)
    expect(getModelInfo('claude-haiku-4-5').supportsPrefill).toBe(true)
  })

  test('ids that are not Claude ids get conservative defaults with a warning', () => {
    const info = getModelInfo('my-local-llama')
    expect(info).toMatchObject({ id: 'my-local-llama', known: false, ...UNKNOWN_MODEL_DEFAULTS })
    expect(info.warning).toMatch(/not in the model table/)
  })

  test('getModelInfo never throws for a string id and always answers a consistent ModelInfo', () => {
    const claudeish = fc
      .tuple(
        fc.constantFrom('opus', 'sonnet', 'haiku', 'fable', 'mythos', 'zeta'),
        fc.integer({ min: 0, max: 12 }),
        fc.option(fc.integer({ min: 0, max: 99 }), { nil: undefined }),
        fc.constantFrom('', '-20260101', '@20260101', '-v1:0'),
      )
      .map(
        ([f, major, minor, tail]) =>
          `claude-${f}-${major}${minor === undefined ? '' : `-${minor}`}${tail}`,
      )
    fc.assert(
      fc.property(fc.oneof(fc.string(), claudeish), (id) => {
        const info = getModelInfo(id)
        expect(ModelInfoSchema.safeParse(info).success).toBe(true)
        expect(info.id).toBe(id)
        expect(info.known || typeof info.warning === 'string').toBe(true)
        if (info.thinkingMode === 'adaptive-always') expect(info.supportsPrefill).toBe(false)
        // a new family name gets the newest known model's limits, never the 4,096-token fallback
        if (/^claude-(mythos|zeta)-/.test(id)) {
          expect(info).toMatchObject({ known: false, contextWindow: 1_000_000, maxOutput: 128_000 })
        }
      }),
    )
  })

  test('a non-string id is a ValidationError, not a TypeError', () => {
    expect(() => getModelInfo(42 as never)).toThrow(VALIDATION_ERROR)
  })
})

describe('overrides and registration', () => {
  test('overrides apply last and are validated', () => {
    expect(getModelInfo('claude-haiku-4-5', { supportsPrefill: false }).supportsPrefill).toBe(false)
    expect(() => getModelInfo('claude-haiku-4-5', { contextWindow: -1 })).toThrow(VALIDATION_ERROR)
  })

  test('thinking fields stay consistent: one derives the other; contradictions are rejected', () => {
    expect(getModelInfo('claude-3-haiku', { supportsThinking: true }).thinkingMode).toBe('extended')
    expect(getModelInfo('claude-opus-4-6', { supportsThinking: false })).toMatchObject({
      thinkingMode: 'none',
      supportsThinking: false,
    })
    expect(getModelInfo('claude-3-haiku', { thinkingMode: 'adaptive' }).supportsThinking).toBe(true)
    // always-on thinking turns prefill off...
    expect(
      getModelInfo('claude-haiku-4-5', { thinkingMode: 'adaptive-always' }).supportsPrefill,
    ).toBe(false)
    // ...and asking for both is a contradiction
    expect(() =>
      getModelInfo('claude-haiku-4-5', { thinkingMode: 'adaptive-always', supportsPrefill: true }),
    ).toThrow(/cannot take a prefill/)
    expect(() =>
      getModelInfo('claude-haiku-4-5', { thinkingMode: 'none', supportsThinking: true }),
    ).toThrow(VALIDATION_ERROR)
    expect(() => getModelInfo('claude-haiku-4-5', null as never)).toThrow(VALIDATION_ERROR)
  })

  test('register adds and overrides entries; longest prefix wins', () => {
    const registry = new ModelRegistry()
    registry.register('qwen3', { family: 'qwen', contextWindow: 32_768, supportsPrefill: true })
    registry.register('qwen3-coder', { contextWindow: 262_144 })
    expect(registry.get('qwen3-8b')).toMatchObject({ known: true, contextWindow: 32_768 })
    expect(registry.get('qwen3-coder-30b')).toMatchObject({ known: true, contextWindow: 262_144 })
    expect(registry.has('qwen3-coder-30b')).toBe(true)
    registry.register('claude-haiku-4-5', { supportsPrefill: false })
    expect(registry.get('claude-haiku-4-5').supportsPrefill).toBe(false)
    // the default registry is untouched
    expect(getModelInfo('claude-haiku-4-5').supportsPrefill).toBe(true)
  })

  test('a partial entry for a new Claude id starts from the guess for that id', () => {
    const registry = new ModelRegistry()
    registry.register('claude-mythos-5-1', { maxOutput: 64_000 })
    expect(registry.get('claude-mythos-5-1')).toMatchObject({
      known: true,
      family: 'mythos',
      contextWindow: 1_000_000,
      maxOutput: 64_000,
      supportsPrefill: false,
    })
    expect(registry.get('claude-mythos-5-1').warning).toBeUndefined()
  })

  test('an empty registry knows nothing; invalid entries are rejected', () => {
    const registry = new ModelRegistry({})
    expect(registry.get('claude-opus-4-5').known).toBe(false)
    expect(registry.get('claude-opus-4-5').warning).toMatch(/no Claude models/)
    expect(() => registry.register('x', { maxOutput: 0 })).toThrow(/Invalid model entry "x"/)
  })
})
