import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { digest, memoryTrace, noopTrace, sha256Hex } from './trace.js'

const clock = () => {
  let t = Date.UTC(2026, 0, 1)
  return () => (t += 1000)
}

test('memoryTrace keeps events with ts, seq and stage', () => {
  const trace = memoryTrace({ now: clock() })
  trace.record('a', { n: 1 })
  trace.record('b')
  trace.record('a', { n: 2 })
  expect(trace.events).toEqual([
    { ts: '2026-01-01T00:00:01.000Z', seq: 0, stage: 'a', data: { n: 1 } },
    { ts: '2026-01-01T00:00:02.000Z', seq: 1, stage: 'b', data: {} },
    { ts: '2026-01-01T00:00:03.000Z', seq: 2, stage: 'a', data: { n: 2 } },
  ])
  expect(trace.byStage('a').map((e) => e.data.n)).toEqual([1, 2])
  expect(() => noopTrace.record('x', { y: 1 })).not.toThrow()
})

describe('digest', () => {
  test('pinned outputs: the first 12 hex digits of SHA-256 of the text or of its JSON', () => {
    expect(digest('')).toBe('e3b0c44298fc')
    expect(digest('abc')).toBe('ba7816bf8f01')
    expect(digest([{ type: 'text', text: 'hi' }])).toBe(
      createHash('sha256').update('[{"type":"text","text":"hi"}]').digest('hex').slice(0, 12),
    )
  })

  test('property: equals node:crypto SHA-256 for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(anyCodePoints({ maxLength: 300 }), (text) => {
        const expected = createHash('sha256').update(text).digest('hex').slice(0, 12)
        expect(digest(text)).toBe(expected)
      }),
    )
  })

  test('sha256Hex is the full SHA-256 hex digest, as node:crypto computes it', () => {
    fc.assert(
      fc.property(anyCodePoints({ maxLength: 200 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text).digest('hex'))
      }),
    )
  })

  test('never throws for values JSON cannot hold (bigint, cycles)', () => {
    const cyclic: Record<string, unknown> = { n: 1n }
    cyclic.self = cyclic
    expect(digest(cyclic)).toMatch(/^[0-9a-f]{12}$/)
  })
})
