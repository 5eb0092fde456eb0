import { createAnthropic } from '@ai-sdk/anthropic'
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
} from '@ai-sdk/provider'
import { ValidationError } from '@contextkit/core'
import { type AnthropicEmulator, startAnthropicEmulator } from '@contextkit/testkit'
import { wrapLanguageModel } from 'ai'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { contextkitMiddleware } from './middleware.js'

type Marker = { type: 'ephemeral'; ttl?: '5m' | '1h' }
type Wire = {
  cache_control?: Marker
  tools?: { name: string; cache_control?: Marker }[]
  system?: { text: string; cache_control?: Marker }[]
  messages: { role: string; content: { type: string; text?: string; cache_control?: Marker }[] }[]
}

let emu: AnthropicEmulator
beforeAll(async () => {
  emu = await startAnthropicEmulator({ script: () => 'ok' })
})
afterAll(() => emu.close())

type WireBlock = Wire['messages'][number]['content'][number] & { content?: unknown }

/** A wire block's text: its own, or a tool result's content. */
function textOf(b: WireBlock): string {
  if (b.text !== undefined) return b.text
  if (typeof b.content === 'string') return b.content
  if (Array.isArray(b.content))
    return b.content.map((c: { text?: string }) => c.text ?? '').join('')
  return `${b.type}?`
}

/** Every block of a wire request that may carry a marker, with a name to find it by. */
function wireMarkers(body: Wire): Map<string, Marker> {
  const out = new Map<string, Marker>()
  const add = (key: string, m: Marker | undefined) => {
    if (m) out.set(key, m)
  }
  add('request', body.cache_control)
  for (const t of body.tools ?? []) add(`tool:${t.name}`, t.cache_control)
  for (const b of body.system ?? []) add(`text:${b.text.slice(0, 16)}`, b.cache_control)
  for (const m of body.messages)
    for (const b of m.content) add(`text:${textOf(b).slice(0, 16)}`, b.cache_control)
  return out
}

/**
 * A call with up to six of the caller's own markers on system messages, text parts, tools and
 * the request, each at a place named by its (unique) text or tool name.
 */
const callArb = fc
  .record({
    systems: fc.integer({ min: 0, max: 2 }),
    rounds: fc.integer({ min: 0, max: 4 }),
    tools: fc.integer({ min: 0, max: 2 }),
    bigTools: fc.boolean(),
    ttl: fc.constantFrom<Marker['ttl'] | undefined>(undefined, '5m', '1h'),
    picks: fc.array(fc.nat(), { maxLength: 6 }),
  })
  .map(({ systems, rounds, tools, bigTools, ttl, picks }) => {
    const marker: Marker = ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl }
    const places: string[] = ['request']
    for (let i = 0; i < systems; i++) places.push(`text:system ${i} sssssss`)
    for (let i = 0; i < tools; i++) places.push(`tool:tool_${i}`)
    places.push('text:question')
    for (let r = 0; r < rounds; r++) places.push(`text:reply ${r}`, `text:result ${r}`)
    const marked = new Set(picks.map((p) => places[p % places.length]!))
    const opts = (key: string) =>
      marked.has(key) ? { providerOptions: { anthropic: { cacheControl: marker } } } : {}
    const prompt: LanguageModelV4Message[] = []
    for (let i = 0; i < systems; i++) {
      const content = `system ${i} ${'s'.repeat(3_000)}`
      prompt.push({ role: 'system', content, ...opts(`text:${content.slice(0, 16)}`) })
    }
    prompt.push({
      role: 'user',
      content: [{ type: 'text', text: 'question', ...opts('text:question') }],
    })
    for (let r = 0; r < rounds; r++) {
      prompt.push({
        role: 'assistant',
        content: [
          { type: 'text', text: `reply ${r}`, ...opts(`text:reply ${r}`) },
          { type: 'tool-call', toolCallId: `c${r}`, toolName: 'tool_0', input: { r } },
        ],
      })
      prompt.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${r}`,
            toolName: 'tool_0',
            output: { type: 'text', value: `result ${r}` },
            ...opts(`text:result ${r}`),
          },
        ],
      })
    }
    const toolDefs: LanguageModelV4FunctionTool[] = Array.from({ length: tools }, (_, i) => ({
      type: 'function',
      name: `tool_${i}`,
      description: bigTools ? 'd'.repeat(5_000) : 'A tool.',
      inputSchema: { type: 'object', properties: {} },
      ...opts(`tool:tool_${i}`),
    }))
    const newest = rounds > 0 ? `text:result ${rounds - 1}` : 'text:question'
    const systemEnd = systems > 0 ? `text:system ${systems - 1} sssssss` : undefined
    return {
      prompt,
      tools: toolDefs,
      marked,
      marker,
      request: marked.has('request'),
      newest,
      systemEnd,
    }
  })

describe('cache markers on the wire (real @ai-sdk/anthropic against testkit, which refuses a fifth)', () => {
  test("property: the caller's own markers stay where they are, unchanged; ours fill free slots; never more than four", async () => {
    await fc.assert(
      fc.asyncProperty(callArb, async (call) => {
        // a middleware per call: each prompt is a run of its own (not a later step of another)
        const model = wrapLanguageModel({
          model: createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })('claude-sonnet-4-6'),
          middleware: contextkitMiddleware({ middleware: [] }),
        })
        const params: LanguageModelV4CallOptions = {
          prompt: call.prompt as LanguageModelV4Prompt,
          ...(call.tools.length > 0 ? { tools: call.tools } : {}),
          ...(call.request
            ? { providerOptions: { anthropic: { cacheControl: call.marker } } }
            : {}),
        }
        const before = JSON.stringify(params)
        await model.doGenerate(params)
        expect(JSON.stringify(params)).toBe(before) // nothing of the caller's changed in place
        const body = emu.requests.at(-1)!.body as Wire
        const wire = wireMarkers(body)
        const own = call.marked.size
        // ours take the caller's longest TTL, so a longer TTL never follows a shorter one
        const ttl = (n: number) => (n > 0 && call.marker.ttl === '1h' ? { ttl: '1h' } : {})
        if (own > 4) {
          // over the limit by the caller's own doing: we add none (and move none); what
          // @ai-sdk/anthropic then sends of them is its own choice
          for (const key of wire.keys()) expect(call.marked.has(key), key).toBe(true)
          return
        }
        expect(wire.size).toBeLessThanOrEqual(4)
        for (const key of call.marked) expect(wire.get(key), key).toEqual(call.marker)
        if (own < 4) {
          // ours in the loop's precedence: the end of the stable system part, then the newest message
          let room = 4 - own
          const { systemEnd, newest } = call
          if (systemEnd !== undefined && !call.marked.has(systemEnd)) {
            expect(body.system?.at(-1)?.cache_control).toEqual({ type: 'ephemeral', ...ttl(own) })
            room--
          }
          if (room > 0 && !call.marked.has(newest))
            expect(wire.get(newest)).toEqual({ type: 'ephemeral', ...ttl(own) })
        }
      }),
      { numRuns: 40 },
    )
  }, 120_000)

  test("cache: 'off' sends only the caller's markers; a bad mode is a ValidationError naming it", async () => {
    const model = wrapLanguageModel({
      model: createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })('claude-sonnet-4-6'),
      middleware: contextkitMiddleware({ middleware: [], cache: 'off' }),
    })
    await model.doGenerate({
      prompt: [
        { role: 'system', content: 'rules' },
        { role: 'user', content: [{ type: 'text', text: 'question' }] },
      ],
    })
    expect(JSON.stringify(emu.requests.at(-1)!.body)).not.toContain('cache_control')
    expect(() => contextkitMiddleware({ middleware: [], cache: 'on' as never })).toThrow(
      ValidationError,
    )
    expect(() => contextkitMiddleware({ middleware: [], cache: 'on' as never })).toThrow(
      /options\.cache/,
    )
  })
})
