import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  type CacheModelOptions,
  type CacheUsage,
  minCacheableTokens,
  PromptCache,
} from './cache-model.js'
import { EmulatorConfigError } from './errors.js'
import { mergeTurns, parseMessagesRequest } from './parse-request.js'
import { requestTokens } from './token-rule.js'
import type { WireMessagesRequest } from './wire-types.js'

const EPHEMERAL = { type: 'ephemeral' } as const
const ONE_HOUR = { type: 'ephemeral', ttl: '1h' } as const
const MINUTE = 60_000

/** Text of exactly `n` tokens under the rule (4 characters each). */
const tokens = (n: number, ch = 'x') => ch.repeat(4 * n)

function parse(body: Record<string, unknown>): WireMessagesRequest {
  const r = parseMessagesRequest({ model: 'claude-sonnet-4-5', max_tokens: 10, ...body }, true)
  if (!r.ok) throw new Error(r.message)
  return r.request
}

function setup(options: CacheModelOptions = {}) {
  let now = 1_000_000
  const cache = new PromptCache({ clock: () => now, ...options })
  let n = 0
  const send = (body: Record<string, unknown>, key = 'key-a'): CacheUsage & { total: number } => {
    const request = parse(body)
    const usage = cache.account(request, mergeTurns(request.messages), key, `req_${++n}`)
    return { ...usage, total: requestTokens(request) }
  }
  const advance = (ms: number) => {
    now += ms
  }
  return { cache, send, advance }
}

/** A 2,000-token system prompt with a breakpoint, and a user turn of 1 + 3 tokens. */
const sysCached = (question = 'abcd') => ({
  system: [{ type: 'text', text: tokens(2000), cache_control: EPHEMERAL }],
  messages: [{ role: 'user', content: question }],
})

describe('PromptCache', () => {
  test('a breakpoint writes its prefix; the same prefix later is read, the rest is input', () => {
    const { cache, send } = setup()
    expect(send(sysCached())).toMatchObject({
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 0,
      input_tokens: 4,
      cache_creation: { ephemeral_5m_input_tokens: 2000, ephemeral_1h_input_tokens: 0 },
    })
    const second = send(sysCached('a different question'))
    expect(second).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 2000,
      input_tokens: 5 + 3,
    })
    expect(second.input_tokens + second.cache_read_input_tokens).toBe(second.total)
    expect(cache.stats()).toMatchObject({
      requests: 2,
      hits: 1,
      writes: 1,
      cacheReadInputTokens: 2000,
      cacheCreationInputTokens: 2000,
      inputTokens: 12,
      totalInputTokens: 4012,
      hitRate: 2000 / 4012,
      entries: 1,
    })
  })

  test('byte for byte: one changed character misses and writes a second entry', () => {
    const { cache, send } = setup()
    send(sysCached())
    const changed = {
      ...sysCached(),
      system: [{ type: 'text', text: `${tokens(1999)}xxxy`, cache_control: EPHEMERAL }],
    }
    expect(send(changed)).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 2000,
    })
    expect(cache.stats().entries).toBe(2)
  })

  test('the prefix order is tools → system → messages, as the API hashes it', () => {
    const { send } = setup()
    const tool = (description: string) => ({
      name: 'lookup',
      description,
      input_schema: { type: 'object' },
      cache_control: EPHEMERAL,
    })
    const body = (description: string, system: string) => ({
      tools: [tool(description)],
      system: [{ type: 'text', text: system, cache_control: EPHEMERAL }],
      messages: [{ role: 'user', content: 'abcd' }],
    })
    const first = send(body(tokens(1500, 'd'), tokens(1000, 's')))
    const toolTokens = first.cache_creation_input_tokens - 1000
    expect(toolTokens).toBeGreaterThan(1500)
    // The system prompt changed: the tools (hashed before it) are still read.
    expect(send(body(tokens(1500, 'd'), tokens(1000, 'S')))).toMatchObject({
      cache_read_input_tokens: toolTokens,
      cache_creation_input_tokens: 1000,
    })
    // A tool changed: nothing after it matches either, though the system text is the same.
    expect(send(body(tokens(1500, 'D'), tokens(1000, 'S')))).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: toolTokens + 1000,
    })
  })

  test('tool_choice and thinking settings invalidate the messages, not tools and system', () => {
    const { send } = setup()
    const body = (toolChoice: unknown) => ({
      tools: [{ name: 't', input_schema: { type: 'object' } }],
      tool_choice: toolChoice,
      system: [{ type: 'text', text: tokens(2000), cache_control: EPHEMERAL }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: tokens(500, 'u'), cache_control: EPHEMERAL }],
        },
      ],
    })
    const first = send(body({ type: 'auto' }))
    expect(send(body({ type: 'auto' })).cache_read_input_tokens).toBe(
      first.cache_creation_input_tokens,
    )
    const changed = send(body({ type: 'any' }))
    expect(changed.cache_read_input_tokens).toBe(first.cache_creation_input_tokens - 503)
    expect(changed.cache_creation_input_tokens).toBe(503)
  })

  test('below the model minimum nothing is written, without an error', () => {
    const { cache, send } = setup()
    const body = { ...sysCached(), model: 'claude-haiku-4-5' } // minimum 4,096
    expect(send(body)).toMatchObject({ cache_creation_input_tokens: 0, input_tokens: 2004 })
    expect(send(body)).toMatchObject({ cache_read_input_tokens: 0, input_tokens: 2004 })
    expect(cache.stats()).toMatchObject({ writes: 0, hits: 0, entries: 0 })
    // The minimum counts the whole prefix, not just the marked block.
    const big = {
      model: 'claude-haiku-4-5',
      system: [
        { type: 'text', text: tokens(3000, 'a') },
        { type: 'text', text: tokens(1100, 'b'), cache_control: EPHEMERAL },
      ],
      messages: [{ role: 'user', content: 'abcd' }],
    }
    expect(send(big).cache_creation_input_tokens).toBe(4100)
    const lowered = setup({ minTokens: { 'claude-haiku-4-5': 100 } })
    expect(lowered.send(body).cache_creation_input_tokens).toBe(2000)
  })

  test('the minimum table by model family, with overrides', () => {
    expect(minCacheableTokens('claude-sonnet-4-5')).toBe(1024)
    expect(minCacheableTokens('claude-sonnet-4-5-20250929')).toBe(1024)
    expect(minCacheableTokens('claude-opus-4-6')).toBe(4096)
    expect(minCacheableTokens('claude-opus-4-20250514')).toBe(1024)
    expect(minCacheableTokens('claude-haiku-4-5')).toBe(4096)
    expect(minCacheableTokens('claude-3-5-haiku-latest')).toBe(2048)
    expect(minCacheableTokens('some-future-model')).toBe(1024)
    expect(minCacheableTokens('claude-opus-4-6', 10)).toBe(10)
    expect(minCacheableTokens('claude-opus-4-6', { 'claude-opus-4-6': 7 })).toBe(7)
  })

  test('TTL: 5 minutes, refreshed by every read; 1 hour when asked', () => {
    const { cache, send, advance } = setup()
    send(sysCached())
    advance(5 * MINUTE - 1)
    expect(send(sysCached()).cache_read_input_tokens).toBe(2000) // refreshed here
    advance(5 * MINUTE - 1)
    expect(send(sysCached()).cache_read_input_tokens).toBe(2000)
    advance(5 * MINUTE)
    expect(cache.stats().entries).toBe(0)
    expect(send(sysCached())).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 2000,
    })

    const long = {
      system: [{ type: 'text', text: tokens(2000, 'h'), cache_control: ONE_HOUR }],
      messages: [{ role: 'user', content: 'abcd' }],
    }
    expect(send(long).cache_creation).toEqual({
      ephemeral_5m_input_tokens: 0,
      ephemeral_1h_input_tokens: 2000,
    })
    advance(59 * MINUTE)
    expect(send(long).cache_read_input_tokens).toBe(2000)
    advance(61 * MINUTE)
    expect(send(long).cache_read_input_tokens).toBe(0)
  })

  test('entries are per API key and per model', () => {
    const { send } = setup()
    send(sysCached(), 'key-a')
    expect(send(sysCached(), 'key-b').cache_read_input_tokens).toBe(0)
    expect(
      send({ ...sysCached(), model: 'claude-sonnet-4-6' }, 'key-a').cache_read_input_tokens,
    ).toBe(0)
    expect(send(sysCached(), 'key-a').cache_read_input_tokens).toBe(2000)
  })

  test('a rolling breakpoint reads what the previous step wrote (lookback to its boundary)', () => {
    const { send } = setup()
    const system = [{ type: 'text', text: tokens(2000), cache_control: EPHEMERAL }]
    const user = (cc: boolean) => ({
      role: 'user',
      content: [
        { type: 'text', text: tokens(100, 'u'), ...(cc ? { cache_control: EPHEMERAL } : {}) },
      ],
    })
    const step1 = send({ system, messages: [user(true)] })
    expect(step1.cache_creation_input_tokens).toBe(2103)
    const call = { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } }
    const result = {
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: tokens(300, 'r'),
      cache_control: EPHEMERAL,
    }
    const step2 = send({
      system,
      messages: [
        user(false),
        { role: 'assistant', content: [call] },
        { role: 'user', content: [result] },
      ],
    })
    expect(step2.cache_read_input_tokens).toBe(2103)
    expect(step2.cache_creation_input_tokens).toBe(step2.total - 2103)
    expect(step2.input_tokens).toBe(0)
  })

  test('lookback is limited to 20 block boundaries per breakpoint', () => {
    const { send } = setup()
    const system = [{ type: 'text', text: tokens(2000), cache_control: EPHEMERAL }]
    const first = { type: 'text', text: tokens(10, 'f') }
    send({
      system,
      messages: [{ role: 'user', content: [{ ...first, cache_control: EPHEMERAL }] }],
    })
    const many = (count: number) => [
      first,
      ...Array.from({ length: count }, (_, i) => ({ type: 'text', text: `block ${i}` })),
    ]
    const withBreakpointAt = (count: number) => {
      const content: Record<string, unknown>[] = many(count)
      content[content.length - 1] = { ...content[content.length - 1], cache_control: EPHEMERAL }
      return { system, messages: [{ role: 'user', content }] }
    }
    // 19 blocks after the stored boundary: still inside the window.
    expect(send(withBreakpointAt(19)).cache_read_input_tokens).toBe(2013)
    // 20 after it: the window misses it; only the system breakpoint's own entry is read.
    const wide = setup()
    wide.send({
      system,
      messages: [{ role: 'user', content: [{ ...first, cache_control: EPHEMERAL }] }],
    })
    expect(wide.send(withBreakpointAt(20)).cache_read_input_tokens).toBe(2000)
  })

  test('a top-level cache_control caches up to the last block (automatic caching)', () => {
    const { send } = setup()
    const messages = [{ role: 'user', content: tokens(1500) }]
    const first = send({ cache_control: EPHEMERAL, messages })
    expect(first.cache_creation_input_tokens).toBe(1503)
    const next = send({
      cache_control: EPHEMERAL,
      messages: [
        ...messages,
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'more' },
      ],
    })
    expect(next).toMatchObject({
      cache_read_input_tokens: 1503,
      cache_creation_input_tokens: 4 + 4,
      input_tokens: 0,
    })
  })

  test('turned off: all input tokens uncached, calls still counted; clear() forgets', () => {
    const off = setup({ enabled: false })
    expect(off.send(sysCached())).toMatchObject({
      input_tokens: 2004,
      cache_creation_input_tokens: 0,
    })
    expect(off.send(sysCached()).cache_read_input_tokens).toBe(0)
    expect(off.cache.stats()).toMatchObject({
      enabled: false,
      requests: 2,
      inputTokens: 4008,
      entries: 0,
    })
    const on = setup()
    on.send(sysCached())
    on.cache.clear()
    expect(on.cache.stats()).toMatchObject({ requests: 0, entries: 0, calls: [] })
    expect(on.send(sysCached()).cache_read_input_tokens).toBe(0)
  })

  test('bad options are EmulatorConfigErrors', () => {
    for (const bad of [
      { enabled: 'yes' },
      { clock: 5 },
      { lookbackBlocks: 0 },
      { minTokens: -1 },
      { minTokens: { m: 1.5 } },
      [],
    ]) {
      expect(() => new PromptCache(bad as never)).toThrow(EmulatorConfigError)
    }
    const broken = new PromptCache({ clock: () => Number.NaN })
    const request = parse(sysCached())
    expect(() => broken.account(request, request.messages, 'k', 'r')).toThrow(EmulatorConfigError)
  })

  test('property: input + creation + read = count_tokens; a repeat writes nothing new', () => {
    const block = fc.record({
      text: fc.string({ minLength: 1, maxLength: 3000 }),
      cached: fc.boolean(),
      ttl: fc.constantFrom('5m', '1h'),
    })
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 3 }),
        fc.array(fc.array(block, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 2000 }),
        (system, turns, minTokens) => {
          const { send } = setup({ minTokens })
          const toBlock = (b: { text: string; cached: boolean; ttl: string }) => ({
            type: 'text',
            text: b.text,
            ...(b.cached ? { cache_control: { type: 'ephemeral', ttl: b.ttl } } : {}),
          })
          const body = {
            system: system.map(toBlock),
            messages: turns.map((t, i) => ({
              role: i % 2 ? 'assistant' : 'user',
              content: t.map(toBlock),
            })),
          }
          const first = send(body)
          const again = send(body)
          for (const u of [first, again]) {
            expect(u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens).toBe(
              u.total,
            )
            expect(u.input_tokens).toBeGreaterThanOrEqual(0)
            expect(
              u.cache_creation.ephemeral_1h_input_tokens +
                u.cache_creation.ephemeral_5m_input_tokens,
            ).toBe(u.cache_creation_input_tokens)
          }
          expect(again.cache_creation_input_tokens).toBe(0)
          expect(again.cache_read_input_tokens).toBe(first.cache_creation_input_tokens)
        },
      ),
      { numRuns: 150 },
    )
  })
})
