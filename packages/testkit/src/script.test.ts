import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ScriptExhaustedError, ScriptFailedError, TestkitError } from './errors.js'
import { normalizeReply, type ScriptRequest, ScriptRunner } from './script.js'

const request: Omit<ScriptRequest, 'index'> = {
  endpoint: 'messages',
  model: 'm',
  messages: [],
  system: '',
  prefill: undefined,
  lastUserText: 'hi',
  stopSequences: [],
  maxTokens: 10,
  stream: false,
  toolNames: [],
  body: {},
  headers: {},
}

describe('normalizeReply', () => {
  test('any value either normalizes or throws ScriptFailedError, never anything else', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        try {
          const r = normalizeReply(value, 0)
          expect(r.blocks.length > 0 || r.fault !== undefined).toBe(true)
        } catch (e) {
          expect(ScriptFailedError.isInstance(e)).toBe(true)
        }
      }),
    )
  })

  test('shorthands come out in order thinking, text, tool calls', () => {
    const r = normalizeReply(
      {
        toolUse: [
          { name: 'a', input: {} },
          { name: 'b', input: { x: 1 } },
        ],
        text: 't',
        thinking: 'th',
      },
      0,
    )
    expect(r.blocks.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use'])
  })

  test('rejects mixed forms, bad faults and bad transport with the step index', () => {
    const bad: unknown[] = [
      { text: 'a', content: [] },
      { fault: { kind: 'http', status: 200 } },
      { fault: { kind: 'stream-error' } },
      { fault: { kind: 'nope' } },
      { text: 'a', transport: { writeSize: 0 } },
      { text: 'a', stopReason: 'because' },
      { text: 'a', usage: { output_tokens: -1 } },
      {},
      42,
    ]
    for (const v of bad) {
      const err = (() => {
        try {
          normalizeReply(v, 3)
        } catch (e) {
          return e
        }
      })()
      expect(ScriptFailedError.isInstance(err)).toBe(true)
      expect((err as ScriptFailedError).details).toEqual({ index: 3 })
    }
  })
})

describe('ScriptRunner', () => {
  test('a list is used once per request, then exhausted; a function sees the index', async () => {
    const list = new ScriptRunner(['a', 'b'])
    expect(list.remaining).toBe(2)
    expect((await list.next(request)).blocks).toEqual([{ type: 'text', text: 'a' }])
    expect((await list.next(request)).blocks).toEqual([{ type: 'text', text: 'b' }])
    expect(list.remaining).toBe(0)
    const err = await list.next(request).catch((e: unknown) => e)
    expect(ScriptExhaustedError.isInstance(err)).toBe(true)
    expect(TestkitError.isInstance(err)).toBe(true)
    expect(ScriptFailedError.isInstance(err)).toBe(false)
    const fn = new ScriptRunner((r) => `call ${r.index}`)
    await fn.next(request)
    expect((await fn.next(request)).blocks).toEqual([{ type: 'text', text: 'call 1' }])
    expect(fn.remaining).toBe(Number.POSITIVE_INFINITY)
  })

  test('errors carry the contextkit marker so core’s ContextkitError.isInstance accepts them', () => {
    const e = new ScriptFailedError('x')
    expect((e as unknown as Record<symbol, unknown>)[Symbol.for('contextkit.error')]).toBe(true)
    expect(e.code).toBe('testkit_script_failed')
    expect(e.recoverable).toBe(false)
    expect(TestkitError.isInstance(new Error('x'))).toBe(false)
  })
})
