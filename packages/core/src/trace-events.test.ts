import fc from 'fast-check'
import { expect, test } from 'vitest'
import { parseTraceEvent, traceEventText } from './trace-events.js'

test('property: an event written as text reads back as written (full mode)', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1 }),
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.nat(),
      (stage, data, seq) => {
        const text = traceEventText(stage, data, seq, { now: () => 0, full: true })
        const event = parseTraceEvent(text)
        expect(event).toEqual({
          ts: '1970-01-01T00:00:00.000Z',
          seq,
          stage,
          data: JSON.parse(JSON.stringify(data)),
        })
      },
    ),
  )
})

test('the stage comes before the data, message lists become digests, what cannot be written is counted', () => {
  const text = traceEventText(
    'loop.request',
    { messages: [{ role: 'user', content: 'secret' }] },
    3,
  )
  expect(text.indexOf('"stage":"loop.request"')).toBeLessThan(text.indexOf('"data"'))
  expect(text).not.toContain('secret')
  const drops = { count: 0 }
  const cycle: Record<string, unknown> = {}
  cycle.self = cycle
  const full = traceEventText('x', { cycle }, 0, { full: true, drops })
  expect(drops.count).toBe(1)
  expect(parseTraceEvent(full)?.data.cycle).toEqual({ self: '[circular]' })
})

test('text that is not an event reads as null; odd fields read as defaults', () => {
  for (const bad of ['', '  ', '{', '[]', 'null', '"x"', '{"seq":1}', '{"stage":7}']) {
    expect(parseTraceEvent(bad)).toBeNull()
  }
  expect(parseTraceEvent('{"stage":"s","data":[1],"seq":"2","ts":5}')).toEqual({
    ts: '',
    seq: 0,
    stage: 's',
    data: {},
  })
})

test('a data key named __proto__ is written and read back as data, in full and summary mode', () => {
  const data = JSON.parse('{"__proto__":false,"nested":{"__proto__":{"a":1}}}')
  for (const full of [true, false]) {
    const event = parseTraceEvent(traceEventText('s', data, 0, { now: () => 0, full }))
    expect(event?.data).toEqual(data)
    expect(Object.hasOwn(event?.data ?? {}, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(event?.data)).toBe(Object.prototype)
  }
})
