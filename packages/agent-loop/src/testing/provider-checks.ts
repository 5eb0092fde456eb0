import assert from 'node:assert/strict'
import { ContextkitError, type Message } from '@contextkit/core'
import type { AgentEvent } from '../events/events.js'
import {
  type ConformanceEmulator,
  type ConformanceHarness,
  modelCalls,
  type ProviderCapabilities,
  say,
  TINY_PNG,
} from './provider-harness.js'

/** One provider conformance check. */
export interface ProviderCheck {
  name: string
  /** Skipped when the provider says it lacks this. */
  needs?: keyof ProviderCapabilities
  run(h: ConformanceHarness): Promise<void>
}

const texts = (events: AgentEvent[], type: 'text-delta' | 'thinking-delta') =>
  events.flatMap((e) => (e.type === type ? [e.text] : []))

const count = (events: AgentEvent[], type: AgentEvent['type']) =>
  events.filter((e) => e.type === type).length

function bodyOf(emulator: ConformanceEmulator, i: number): string {
  const call = modelCalls(emulator)[i]
  assert.ok(call, `request ${i + 1} to the model endpoint was not made`)
  return call.rawBody
}

function ended(result: { stopReason: string; error?: unknown }, stop = 'end_turn'): void {
  const why = result.error instanceof Error ? `: ${result.error.message}` : ''
  assert.equal(
    result.stopReason,
    stop,
    `the run must end with ${stop}, got ${result.stopReason}${why}`,
  )
}

const LONG_INPUT = { q: `nested "quotes", emoji 😀, newline\n, and ${'x'.repeat(300)}` }

/** The checks, in order. */
export const PROVIDER_CHECKS: readonly ProviderCheck[] = [
  {
    name: 'text arrives as deltas and the run ends with end_turn',
    async run(h) {
      const { provider } = await h.start(
        [{ text: 'The quick brown fox jumps over the lazy dog.' }],
        { deltaChars: 5 },
      )
      const { events, result } = await h.run(provider, [say('Say the sentence.')])
      ended(result)
      assert.equal(result.text, 'The quick brown fox jumps over the lazy dog.')
      assert.ok(
        texts(events, 'text-delta').length > 1,
        'the text must stream in more than one delta',
      )
    },
  },
  {
    name: 'multi-byte text survives 1-byte network writes',
    async run(h) {
      const text = 'Grüße aus Köln 😀 — naïve café, 東京.'
      const { provider } = await h.start([{ text, transport: { writeSize: 1 } }])
      const { result } = await h.run(provider, [say('Greet.')])
      ended(result)
      assert.equal(result.text, text)
    },
  },
  {
    name: 'usage reports input and output tokens',
    async run(h) {
      const { provider } = await h.start([{ text: 'Counted.' }])
      const { result } = await h.run(provider, [say('Count this.')])
      assert.ok(result.usage.input + result.usage.cacheRead > 0, 'input tokens must be reported')
      assert.ok(result.usage.output > 0, 'output tokens must be reported')
    },
  },
  {
    name: 'the system prompt reaches the server',
    async run(h) {
      const { provider, emulator } = await h.start([{ text: 'ok' }])
      await h.run(provider, [say('hi')], { system: 'MARKER-SYSTEM-7731' })
      assert.ok(
        bodyOf(emulator, 0).includes('MARKER-SYSTEM-7731'),
        'the system text must be in the request',
      )
    },
  },
  {
    name: 'a tool call runs once with its input, and its result goes back',
    async run(h) {
      const { provider, emulator } = await h.start([
        { calls: [{ name: 'find', input: { q: 'otters' } }] },
        { text: 'Found them.' },
      ])
      const { events, result } = await h.run(provider, [say('Find otters.')], {
        tools: [h.tool('find')],
      })
      ended(result)
      assert.equal(result.text, 'Found them.')
      assert.equal(h.runs.find, 1, 'the tool must run exactly once')
      assert.equal(count(events, 'tool-call'), 1)
      assert.ok(bodyOf(emulator, 1).includes('find:otters'), 'the tool result must be sent back')
    },
  },
  {
    name: 'a tool input streamed in tiny pieces is reassembled exactly',
    async run(h) {
      const { provider } = await h.start(
        [{ calls: [{ name: 'echo', input: LONG_INPUT }] }, { text: 'done' }],
        { deltaChars: 1, writeSize: 7 },
      )
      let seen: unknown
      const echo = h.tool('echo', (input) => {
        seen = input
        return 'ok'
      })
      const { result } = await h.run(provider, [say('Echo.')], { tools: [echo] })
      ended(result)
      assert.deepEqual(seen, LONG_INPUT)
    },
  },
  {
    name: 'parallel tool calls all run, in the order the model gave them',
    async run(h) {
      const calls = ['a', 'b', 'c'].map((q) => ({ name: 'find', input: { q } }))
      const { provider } = await h.start([
        { text: 'Three at once.', calls },
        { text: 'All three.' },
      ])
      const { result } = await h.run(provider, [say('Find a, b and c.')], {
        tools: [h.tool('find')],
      })
      ended(result)
      assert.equal(h.runs.find, 3)
      const made = result.messages[0]?.content.flatMap((b) =>
        b.type === 'tool_call' ? [b.input] : [],
      )
      assert.deepEqual(made, [{ q: 'a' }, { q: 'b' }, { q: 'c' }])
      const answered = result.messages[1]?.content.flatMap((b) =>
        b.type === 'tool_result' ? [b.toolCallId] : [],
      )
      const ids = result.messages[0]?.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []))
      assert.deepEqual(answered, ids, 'results must answer the calls in order')
    },
  },
  {
    name: 'a reply that calls tools ends its step with stop reason tool_use',
    async run(h) {
      const { provider } = await h.start([
        { calls: [{ name: 'find', input: { q: 'x' } }] },
        { text: 'ok' },
      ])
      const { result } = await h.run(provider, [say('go')], { tools: [h.tool('find')] })
      const first = result.messages[0] as { role: string; stopReason?: string } | undefined
      assert.equal(first?.role, 'assistant')
      assert.equal(first?.stopReason, 'tool_use')
    },
  },
  {
    name: 'a failing tool becomes an error result and the run goes on',
    async run(h) {
      const { provider, emulator } = await h.start([
        { calls: [{ name: 'boom', input: { q: 'x' } }] },
        { text: 'Recovered.' },
      ])
      const boom = h.tool('boom', () => {
        throw new Error('BOOM-4412')
      })
      const { result } = await h.run(provider, [say('Try it.')], { tools: [boom] })
      ended(result)
      assert.ok(bodyOf(emulator, 1).includes('BOOM-4412'), 'the error must reach the model')
    },
  },
  {
    name: 'a call of an unknown tool gets an error result, not a crash',
    async run(h) {
      const { provider } = await h.start([
        { calls: [{ name: 'nosuch', input: { q: 'x' } }] },
        { text: 'Understood.' },
      ])
      const { result } = await h.run(provider, [say('go')], { tools: [h.tool('find')] })
      ended(result)
      assert.equal(result.text, 'Understood.')
    },
  },
  {
    name: 'thinking streams as thinking deltas, before the text',
    needs: 'thinking',
    async run(h) {
      const { provider } = await h.start(
        [{ thinking: 'Let me think about it.', text: 'Answer.' }],
        { deltaChars: 4 },
      )
      const { events, result } = await h.run(provider, [say('Think.')])
      ended(result)
      assert.equal(texts(events, 'thinking-delta').join(''), 'Let me think about it.')
      const kinds = result.messages[0]?.content.map((b) => b.type)
      assert.deepEqual(kinds, ['thinking', 'text'])
    },
  },
  {
    name: 'a reply cut at the token limit ends with max_tokens',
    async run(h) {
      const { provider } = await h.start([{ text: 'word '.repeat(200), stopReason: 'max_tokens' }])
      const { result } = await h.run(provider, [say('Talk.')], { maxTokens: 16 })
      ended(result, 'max_tokens')
    },
  },
  {
    name: 'an image in a user message reaches the server',
    needs: 'images',
    async run(h) {
      const { provider, emulator } = await h.start([{ text: 'A pixel.' }])
      const message: Message = {
        role: 'user',
        content: [{ type: 'text', text: 'What is it?' }, TINY_PNG],
      }
      const { result } = await h.run(provider, [message])
      ended(result)
      assert.ok(bodyOf(emulator, 0).includes(TINY_PNG.data), 'the image data must be sent')
    },
  },
  {
    name: 'an image returned by a tool reaches the server',
    needs: 'imageToolResults',
    async run(h) {
      const { provider, emulator } = await h.start([
        { calls: [{ name: 'shot', input: { q: 'x' } }] },
        { text: 'Seen.' },
      ])
      const shot = h.tool('shot', () => [TINY_PNG])
      const { result } = await h.run(provider, [say('Take a shot.')], { tools: [shot] })
      ended(result)
      assert.ok(bodyOf(emulator, 1).includes(TINY_PNG.data), 'the tool image must be sent')
    },
  },
  {
    name: 'a stream that fails mid-way is retried and its tool runs once',
    needs: 'streamRetries',
    async run(h) {
      const call = { name: 'find', input: { q: 'once' } }
      const { provider } = await h.start([
        {
          text: 'Looking.',
          calls: [call],
          fault: { kind: 'stream-error', afterEvents: 2, errorType: 'overloaded_error' },
        },
        { text: 'Looking.', calls: [call] },
        { text: 'Done.' },
      ])
      const { events, result } = await h.run(provider, [say('Find.')], { tools: [h.tool('find')] })
      ended(result)
      assert.equal(h.runs.find, 1, 'the tool of the failed stream must not run')
      assert.ok(count(events, 'retry') >= 1, 'a retry event must be reported')
    },
  },
  {
    name: 'a connection reset mid-stream is retried or reported, never half-run',
    async run(h) {
      const call = { name: 'find', input: { q: 'r' } }
      const { provider } = await h.start([
        {
          text: 'Partial text that is long enough to be cut.',
          calls: [call],
          fault: { kind: 'reset', afterEvents: 2 },
        },
        { calls: [call] },
        { text: 'Done.' },
      ])
      const { result } = await h.run(provider, [say('Find.')], { tools: [h.tool('find')] })
      if (result.stopReason === 'end_turn') assert.equal(h.runs.find, 1)
      else {
        assert.equal(result.stopReason, 'error')
        assert.equal(h.runs.find ?? 0, 0, 'no tool of a cut reply may run')
      }
    },
  },
  {
    name: 'HTTP 429 then success: the run succeeds',
    needs: 'httpRetries',
    async run(h) {
      const { provider, emulator } = await h.start([
        { fault: { kind: 'http', status: 429, retryAfterMs: 5, shouldRetry: true } },
        { text: 'Through.' },
      ])
      const { result } = await h.run(provider, [say('hi')])
      ended(result)
      assert.equal(result.text, 'Through.')
      assert.equal(modelCalls(emulator).length, 2)
    },
  },
  {
    name: 'HTTP 400 ends the run with one typed error, not retried',
    async run(h) {
      const { provider, emulator } = await h.start([
        { fault: { kind: 'http', status: 400, message: 'BAD-REQUEST-5521' } },
      ])
      const { result } = await h.run(provider, [say('hi')])
      ended(result, 'error')
      assert.ok(ContextkitError.isInstance(result.error), 'the error must be a ContextkitError')
      assert.ok(
        result.error.message.includes('BAD-REQUEST-5521'),
        "the server's message must be kept",
      )
      assert.equal(modelCalls(emulator).length, 1, 'a 400 must not be retried')
    },
  },
  {
    name: 'a server that keeps failing with 500 ends the run after a bounded number of tries',
    async run(h) {
      const fail = () => ({
        fault: { kind: 'http', status: 500, retryAfterMs: 1, shouldRetry: true },
      })
      const { provider, emulator } = await h.start(Array.from({ length: 12 }, () => fail))
      const { result } = await h.run(provider, [say('hi')])
      ended(result, 'error')
      assert.ok(
        modelCalls(emulator).length <= 10,
        `at most 10 requests, got ${modelCalls(emulator).length}`,
      )
    },
  },
  {
    name: 'abort mid-stream stops the run as aborted and runs no tool',
    async run(h) {
      const { provider } = await h.start(
        [{ text: 'slow '.repeat(200), calls: [{ name: 'find', input: { q: 'x' } }] }],
        { deltaChars: 5, chunkDelayMs: 3 },
      )
      const controller = new AbortController()
      const { result } = await h.run(provider, [say('Talk.')], {
        tools: [h.tool('find')],
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'text-delta') controller.abort()
        },
      })
      ended(result, 'aborted')
      assert.equal(h.runs.find ?? 0, 0)
    },
  },
  {
    name: 'a run aborted before it starts makes no tool run',
    async run(h) {
      const { provider } = await h.start([{ calls: [{ name: 'find', input: { q: 'x' } }] }])
      const controller = new AbortController()
      controller.abort()
      const { result } = await h.run(provider, [say('go')], {
        tools: [h.tool('find')],
        signal: controller.signal,
      })
      ended(result, 'aborted')
      assert.equal(h.runs.find ?? 0, 0)
    },
  },
  {
    name: 'a repeated long prompt reports cache reads',
    needs: 'cachedTokens',
    async run(h) {
      const { provider } = await h.start([{ text: 'one' }, { text: 'two' }])
      const long = 'All work and no play makes a dull agent. '.repeat(800)
      await h.run(provider, [say(long)])
      const { result } = await h.run(provider, [say(long)])
      assert.ok(result.usage.cacheRead > 0, 'the second call must read from the cache')
    },
  },
  {
    name: 'a two-step conversation keeps both steps in the result, in order',
    async run(h) {
      const { provider } = await h.start([
        { text: 'First I look.', calls: [{ name: 'find', input: { q: 'z' } }] },
        { text: 'Then I answer.' },
      ])
      const { result } = await h.run(provider, [say('go')], { tools: [h.tool('find')] })
      ended(result)
      assert.deepEqual(
        result.messages.map((m) => m.role),
        ['assistant', 'user', 'assistant'],
      )
      assert.equal(result.text, 'Then I answer.')
    },
  },
]
