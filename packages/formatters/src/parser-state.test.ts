import fc from 'fast-check'
import { expect, test } from 'vitest'
import { Accumulator } from './parser-state.js'

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
