import fc from 'fast-check'
import { expect, test } from 'vitest'
import { Accumulator, EventBuffer } from './parser-state.js'
import { XmlStreamParser } from './xml-stream-parser.js'

test('property: the accumulator gives back every chunk, in order, however they are sized', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(fc.string({ maxLength: 3 }), fc.string({ minLength: 1000, maxLength: 1100 })),
        {
          maxLength: 1200,
        },
      ),
      fc.array(fc.nat(), { maxLength: 3 }),
      (chunks, reads) => {
        const acc = new Accumulator()
        const readAt = new Set(reads.map((r) => r % (chunks.length + 1)))
        let expected = ''
        chunks.forEach((c, i) => {
          if (readAt.has(i)) expect(acc.text()).toBe(expected)
          acc.add(c)
          expected += c
        })
        expect(acc.text()).toBe(expected)
        acc.clear()
        expect(acc.text()).toBe('')
      },
    ),
    { numRuns: 60 },
  )
})

test('property: runs of short chunks long enough to be joined twice come back whole', () => {
  // every 512 short chunks make a segment; one of 128K characters or more is kept as it is,
  // shorter ones are gathered until they are that long and joined again
  const lengths = fc
    .constantFrom(300, 1100)
    .chain((max) => fc.array(fc.integer({ min: 0, max }), { minLength: 1100, maxLength: 1600 }))
  fc.assert(
    fc.property(lengths, fc.array(fc.nat(), { maxLength: 4 }), (lengths, reads) => {
      const acc = new Accumulator()
      const readAt = new Set(reads.map((r) => r % (lengths.length + 1)))
      const parts: string[] = []
      lengths.forEach((n, i) => {
        if (readAt.has(i)) expect(acc.text()).toBe(parts.join(''))
        const chunk = String.fromCharCode(97 + (i % 26)).repeat(n)
        acc.add(chunk)
        parts.push(chunk)
      })
      expect(acc.text()).toBe(parts.join(''))
    }),
    { numRuns: 8 },
  )
})

test('each call gets its own events: a later chunk never changes an array already returned', () => {
  const buffer = new EventBuffer()
  buffer.delta('text-delta', 'a')
  buffer.delta('text-delta', 'b')
  buffer.push({ type: 'thinking-start' })
  const first = buffer.take()
  buffer.delta('text-delta', 'c')
  const second = buffer.take()
  expect(first).toEqual([{ type: 'text-delta', text: 'ab' }, { type: 'thinking-start' }])
  expect(second).toEqual([{ type: 'text-delta', text: 'c' }])
  expect(buffer.take()).toEqual([])
  buffer.push({ type: 'thinking-end' })
  buffer.clear()
  expect(buffer.take()).toEqual([])
})

test('XmlStreamParser: arrays returned by earlier chunks stay as they were', () => {
  const parser = new XmlStreamParser()
  const chunks = ['Hello ', 'world <thin', 'king>deep', ' thought</thinking> done']
  const returned = chunks.map((c) => parser.processChunk(c))
  const copies = returned.map((events) => structuredClone(events))
  returned.push(parser.flush())
  expect(returned.slice(0, chunks.length)).toEqual(copies)
  expect(copies).toEqual([
    [{ type: 'text-delta', text: 'Hello ' }],
    [{ type: 'text-delta', text: 'world ' }],
    [{ type: 'thinking-start' }, { type: 'thinking-delta', text: 'deep' }],
    [
      { type: 'thinking-delta', text: ' thought' },
      { type: 'thinking-end' },
      { type: 'text-delta', text: ' done' },
    ],
  ])
})
