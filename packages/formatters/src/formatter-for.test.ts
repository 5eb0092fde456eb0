import { getModelInfo, textMessage, ValidationError } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import { ChatMLFormatter } from './chatml-formatter.js'
import { CompletionsFormatter } from './completions-formatter.js'
import { PrefillUnsupportedError } from './errors.js'
import { endsWithAssistantTurn, formatterFor, modelAcceptsFormat } from './formatter-for.js'
import { NativeFormatter } from './native-formatter.js'

const haiku = getModelInfo('claude-haiku-4-5')
const sonnet46 = getModelInfo('claude-sonnet-4-6')

describe('formatterFor', () => {
  test('keeps the preferred format when the model accepts it', () => {
    const xml = new AnthropicXmlFormatter({ toolMode: 'native' })
    expect(formatterFor(haiku, xml)).toBe(xml)
    const native = new NativeFormatter()
    expect(formatterFor(sonnet46, native)).toBe(native)
  })

  test('a model without prefill gets plain messages instead of the transcript format', () => {
    const picked = formatterFor(sonnet46, new AnthropicXmlFormatter())
    expect(picked).toBeInstanceOf(NativeFormatter)
    // and the request it builds ends with the user, as that model requires
    const request = picked.buildMessages([textMessage('user', 'hi')], { model: sonnet46 })
    expect(request.messages.at(-1)?.role).toBe('user')
  })

  test('after a provider said "no prefill", the same model switches format', () => {
    const xml = new AnthropicXmlFormatter()
    expect(formatterFor(haiku, xml)).toBe(xml)
    expect(formatterFor({ ...haiku, supportsPrefill: false }, xml).name).toBe('native')
  })

  test('prompt-string formats are kept whatever the chat model table says', () => {
    const unknown = getModelInfo('qwen2.5-coder-7b')
    expect(unknown.supportsPrefill).toBe(false)
    const chatml = new ChatMLFormatter()
    const completions = new CompletionsFormatter()
    expect(formatterFor(unknown, chatml)).toBe(chatml)
    expect(formatterFor(unknown, completions)).toBe(completions)
    expect(endsWithAssistantTurn(chatml)).toBe(false)
    expect(endsWithAssistantTurn(new AnthropicXmlFormatter())).toBe(true)
    expect(endsWithAssistantTurn(new NativeFormatter())).toBe(false)
    expect(modelAcceptsFormat(unknown, new AnthropicXmlFormatter())).toBe(false)
  })

  test('defaults to NativeFormatter and checks its arguments', () => {
    expect(formatterFor(haiku)).toBeInstanceOf(NativeFormatter)
    expect(() => formatterFor(null as never)).toThrow(ValidationError)
    expect(() => formatterFor(haiku, {} as never)).toThrow(ValidationError)
  })
})

describe('NativeFormatter and the prefill decision', () => {
  test('a model whose thinking is always on gets plain messages too', () => {
    const always = { ...haiku, thinkingMode: 'adaptive-always' as const }
    expect(formatterFor(always, new AnthropicXmlFormatter()).name).toBe('native')
  })

  test('renders a prefill for a model that takes one, refuses it for one that does not', () => {
    const native = new NativeFormatter()
    const messages = [textMessage('user', 'hi')]
    const ok = native.buildMessages(messages, { model: haiku, prefill: 'Sure' })
    expect(ok.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Sure' }],
    })
    expect(() => native.buildMessages(messages, { model: sonnet46, prefill: 'Sure' })).toThrow(
      PrefillUnsupportedError,
    )
    // no model given: not checked, as before
    expect(native.buildMessages(messages, { prefill: 'Sure' }).assistantPrefill).toBe('Sure')
  })
})
