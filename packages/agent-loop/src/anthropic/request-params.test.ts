import { getModelInfo, type Message, type ModelInfo, textMessage } from '@contextkit/core'
import {
  AnthropicXmlFormatter,
  type FormattedRequest,
  NativeFormatter,
} from '@contextkit/formatters'
import { describe, expect, test } from 'vitest'
import type { ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'
import { emulated } from '../test-support.js'
import {
  ANTHROPIC_REQUEST_WARNINGS,
  MAX_CACHE_CONTROL_BLOCKS,
  toStreamParams,
} from './request-params.js'

// a 1×1 transparent PNG
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

const tools = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } } },
  },
]

const history: Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture, and the weather in Paris?' },
      { type: 'image', mediaType: 'image/png', data: PNG },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'A pixel. Then the weather.', signature: 'sig_abc' },
      { type: 'text', text: 'A single pixel. Checking the weather.' },
      { type: 'tool_call', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolCallId: 'toolu_1',
        isError: false,
        content: [
          { type: 'text', text: 'Sunny' },
          { type: 'image', mediaType: 'image/png', data: PNG },
        ],
      },
    ],
    cacheBreakpoint: true,
  },
]

const request = (
  formatted: FormattedRequest,
  model: ModelInfo,
  over: Partial<ProviderRequest> = {},
) => ({ ...formatted, model, maxTokens: 4096, ...over }) as ProviderRequest

async function send(req: ProviderRequest) {
  const { provider, bodies, emulator } = await emulated(() => 'ok')
  const events: ProviderEvent[] = []
  for await (const e of provider.stream(req, { signal: new AbortController().signal }))
    events.push(e)
  return { events, body: bodies()[0], emulator }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

const warnings = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === 'warning' ? [e.code] : []))

describe('toStreamParams: every request shape the formatters produce, accepted by the API emulator', () => {
  test('native: tools, images (also inside tool results), signed thinking, cache markers', async () => {
    const haiku = getModelInfo('claude-haiku-4-5')
    const formatted = new NativeFormatter().buildMessages(history, {
      system: [{ id: 's', text: 'You are a vision assistant.', priority: 1, cache: 'stable' }],
      tools,
      model: haiku,
    })
    const req = deepFreeze(
      request(formatted, haiku, { thinking: { enabled: true, budgetTokens: 2048 } }),
    )
    const { events, body, emulator } = await send(req)
    expect(emulator.requests[0]?.status).toBe(200)
    expect(events.at(-1)?.type).toBe('finish')
    expect(warnings(events)).toEqual([])
    expect(body?.tools?.map((t) => t.name)).toEqual(['get_weather'])
    expect(body?.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
    expect(body?.system?.[0]?.cache_control).toEqual({ type: 'ephemeral' })
    const [user, assistant, results] = body?.messages ?? []
    expect(user?.content).toEqual([
      { type: 'text', text: 'What is in this picture, and the weather in Paris?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ])
    expect(Array.isArray(assistant?.content) && assistant.content[0]).toEqual({
      type: 'thinking',
      thinking: 'A pixel. Then the weather.',
      signature: 'sig_abc',
    })
    const result = Array.isArray(results?.content) ? results.content[0] : undefined
    expect(result).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [
        { type: 'text', text: 'Sunny' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      ],
      cache_control: { type: 'ephemeral' },
    })
  })

  test('the XML transcript: a prefilled assistant turn, stop sequences, cache markers', async () => {
    const haiku = getModelInfo('claude-haiku-4-5')
    const formatted = new AnthropicXmlFormatter({ toolMode: 'xml' }).buildMessages(
      [textMessage('user', 'Weather in Paris?', { cacheBreakpoint: true })],
      { system: 'Be brief.', tools, prefill: 'Let me check.', model: haiku },
    )
    const { events, body, emulator } = await send(request(formatted, haiku))
    expect(emulator.requests[0]?.status).toBe(200)
    expect(warnings(events)).toEqual([])
    expect(body?.messages.at(-1)?.role).toBe('assistant')
    expect(body?.stop_sequences).toEqual(formatted.stopSequences)
    expect(body?.stop_sequences).toContain('</function_calls>')
    expect(body?.tools).toBeUndefined()
    const marked = JSON.stringify(body).split('"cache_control"').length - 1
    expect(marked).toBe(formatted.cacheMarkersApplied)
  })

  test('more than four cache_control markers: the deepest four are kept, with a warning', async () => {
    const haiku = getModelInfo('claude-haiku-4-5')
    const mark = { type: 'ephemeral' as const }
    const six: FormattedRequest = {
      system: [
        { type: 'text', text: 'One.', cache_control: mark },
        { type: 'text', text: 'Two.', cache_control: mark },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Three.', cache_control: mark }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Four.', cache_control: mark }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Five.', cache_control: mark },
            { type: 'text', text: 'Six.', cache_control: mark },
          ],
        },
      ],
      stopSequences: [],
      cacheMarkersApplied: 6,
      warnings: [],
    }
    const { events, body, emulator } = await send(deepFreeze(request(six, haiku)))
    expect(emulator.requests[0]?.status).toBe(200)
    expect(warnings(events)).toEqual([ANTHROPIC_REQUEST_WARNINGS.cacheMarkers])
    expect(body?.system?.map((b) => b.cache_control)).toEqual([undefined, undefined])
    const kept = JSON.stringify(body?.messages).split('"cache_control"').length - 1
    expect(kept).toBe(MAX_CACHE_CONTROL_BLOCKS)
  })

  test('unsigned thinking (from a text format or another provider) is left out, with a warning', async () => {
    const haiku = getModelInfo('claude-haiku-4-5')
    const messages: Message[] = [
      textMessage('user', 'Hi'),
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'parsed from <think> tags' },
          { type: 'text', text: 'Hello.' },
        ],
      },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'only this' }] },
      textMessage('user', 'Again?'),
    ]
    const formatted = new NativeFormatter().buildMessages(messages)
    const { events, body, emulator } = await send(request(formatted, haiku))
    expect(emulator.requests[0]?.status).toBe(200)
    expect(warnings(events)).toEqual([ANTHROPIC_REQUEST_WARNINGS.unsignedThinking])
    expect(JSON.stringify(body?.messages)).not.toContain('"thinking"')
    expect(body?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
  })

  test('thinking follows the model: extended, adaptive, always-on, none; a budget below max_tokens', () => {
    const formatted = new NativeFormatter().buildMessages([textMessage('user', 'Hi')])
    const on = { thinking: { enabled: true, budgetTokens: 50_000 } }
    const params = (id: string, over: Partial<ProviderRequest> = {}) => {
      const seen: string[] = []
      const p = toStreamParams(request(formatted, getModelInfo(id), { ...on, ...over }), {
        onWarning: (w) => seen.push(w.code),
      })
      return { thinking: p.thinking, seen }
    }
    expect(params('claude-haiku-4-5', { maxTokens: 8000 })).toEqual({
      thinking: { type: 'enabled', budget_tokens: 7999 },
      seen: [],
    })
    expect(params('claude-sonnet-4-6').thinking).toEqual({ type: 'adaptive' })
    expect(params('claude-fable-5-1').thinking).toEqual({ type: 'adaptive' })
    expect(params('claude-3-5-haiku-latest')).toEqual({
      thinking: undefined,
      seen: [ANTHROPIC_REQUEST_WARNINGS.thinking],
    })
    expect(params('claude-haiku-4-5', { maxTokens: 1024 })).toEqual({
      thinking: undefined,
      seen: [ANTHROPIC_REQUEST_WARNINGS.thinking],
    })
    expect(params('claude-haiku-4-5', { thinking: { enabled: false } }).thinking).toBeUndefined()
  })

  test('adaptive thinking on claude-sonnet-4-6 and claude-fable-5-1 is accepted', async () => {
    for (const id of ['claude-sonnet-4-6', 'claude-fable-5-1']) {
      const model = getModelInfo(id)
      const formatted = new NativeFormatter().buildMessages([textMessage('user', 'Hi')])
      const { emulator, events } = await send(
        request(formatted, model, { thinking: { enabled: true } }),
      )
      expect(emulator.requests[0]?.status).toBe(200)
      expect(events.at(-1)?.type).toBe('finish')
    }
  })

  test('a prompt-string request (ChatML, completions) is refused with a typed error', () => {
    const req = request(
      {
        messages: [],
        system: [],
        prompt: 'User: hi\nAssistant:',
        stopSequences: [],
        cacheMarkersApplied: 0,
        warnings: [],
      },
      getModelInfo('claude-haiku-4-5'),
    )
    expect(() => toStreamParams(req)).toThrow(ProviderError)
  })
})
