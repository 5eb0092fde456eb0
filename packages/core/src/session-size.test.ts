import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ValidationError } from './errors.js'
import { SessionTooLargeError, sessionEntryText, utf8Length } from './session-size.js'
import type { SessionEntry } from './session-store.js'
import { collectSession, streamSession } from './session-stream.js'
import { memorySessionStore } from './testing/memory-stores.js'

const entry = (text: string): SessionEntry => ({
  type: 'message',
  id: 'm',
  parentId: null,
  ts: 't',
  message: { role: 'user', content: [{ type: 'text', text }] },
})

describe('utf8Length', () => {
  test('counts what TextEncoder writes, surrogate pairs across its chunks included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(3), (s, pad) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length)
        // a pair straddling the 64 Ki-unit chunk boundary
        const long = `${'a'.repeat(64 * 1024 - 1 + pad)}${s}`
        expect(utf8Length(long)).toBe(new TextEncoder().encode(long).length)
      }),
    )
  })
})

describe('sessionEntryText', () => {
  test('is the JSON text up to the limit in bytes, and a typed refusal above it', () => {
    const text = JSON.stringify(entry('é'))
    const bytes = new TextEncoder().encode(text).length
    expect(sessionEntryText(entry('é'), 0, 'f', bytes)).toBe(text)
    const error = (() => {
      try {
        sessionEntryText(entry('é'), 4, 'f', bytes - 1)
      } catch (e) {
        return e
      }
    })()
    expect(SessionTooLargeError.isInstance(error)).toBe(true)
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as SessionTooLargeError).details).toEqual({
      what: 'entry',
      index: 4,
      bytes,
      limit: bytes - 1,
    })
    const cyclic = entry('x') as unknown as { self: unknown }
    cyclic.self = cyclic
    expect(() => sessionEntryText(cyclic as never, 0, 'f')).toThrow(ValidationError)
  })
})

describe('streamSession', () => {
  test("uses the store's stream, or its load entry by entry", async () => {
    const store = memorySessionStore()
    await store.append('s', [entry('a'), { ...entry('b'), id: 'n' }])
    const { stream: _, ...loadOnly } = store
    expect(await collectSession(streamSession(store, 's'))).toEqual(await store.load('s'))
    expect(await collectSession(streamSession(loadOnly, 's'))).toEqual(await store.load('s'))
  })
})
