import { ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { EventChannel } from './event-channel.js'

async function collect<T>(channel: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const e of channel) out.push(e)
  return out
}

describe('EventChannel', () => {
  test('a reader gets every event in order, then the stream ends on close', async () => {
    const channel = new EventChannel<number>()
    channel.push(1)
    const early = collect(channel)
    channel.push(2)
    channel.close()
    channel.push(3)
    expect(await early).toEqual([1, 2])
  })

  test('read events are released: a run read live holds almost nothing', async () => {
    const channel = new EventChannel<number>({ capacity: 8 })
    const seen: number[] = []
    const reading = (async () => {
      for await (const e of channel) {
        seen.push(e)
        expect(channel.size).toBeLessThanOrEqual(1)
      }
    })()
    for (let i = 0; i < 10_000; i++) {
      channel.push(i)
      await channel.ready()
      await Promise.resolve()
    }
    channel.close()
    await reading
    expect(seen).toEqual(Array.from({ length: 10_000 }, (_, i) => i))
    expect(channel.size).toBe(0)
    expect(channel.dropped).toBe(0)
  })

  test('unread, only the last `capacity` events are kept; a late reader gets those', async () => {
    const channel = new EventChannel<number>({ capacity: 3 })
    for (let i = 0; i < 10; i++) channel.push(i)
    expect(channel.size).toBe(3)
    expect(channel.dropped).toBe(7)
    channel.close()
    expect(await collect(channel)).toEqual([7, 8, 9])
    expect(await collect(channel)).toEqual([])
  })

  test('replay: true keeps every event and each reader starts from the first', async () => {
    const channel = new EventChannel<number>({ capacity: 2, replay: true })
    for (let i = 0; i < 5; i++) channel.push(i)
    channel.close()
    expect(await collect(channel)).toEqual([0, 1, 2, 3, 4])
    expect(await collect(channel)).toEqual([0, 1, 2, 3, 4])
  })

  test('backpressure: ready() waits while the slowest reader is `capacity` behind', async () => {
    const channel = new EventChannel<number>({ capacity: 2 })
    const iterator = channel[Symbol.asyncIterator]()
    channel.push(0)
    expect((await iterator.next()).value).toBe(0) // the reader is attached and caught up
    channel.push(1)
    channel.push(2)
    expect(channel.desiredSize).toBe(0)
    let ready = false
    const waiting = channel.ready().then(() => {
      ready = true
    })
    await Promise.resolve()
    expect(ready).toBe(false)
    expect((await iterator.next()).value).toBe(1)
    await waiting
    expect(ready).toBe(true)
    await iterator.return?.()
    expect(channel.desiredSize).toBe(2) // no reader: the producer never waits
  })

  test('unread, the channel holds min(pushed, capacity) events and counts the rest as dropped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 1, max: 50 }),
        (n, capacity) => {
          const channel = new EventChannel<number>({ capacity })
          for (let i = 0; i < n; i++) channel.push(i)
          expect(channel.size).toBe(Math.min(n, capacity))
          expect(channel.dropped).toBe(Math.max(0, n - capacity))
        },
      ),
    )
  })

  test('two readers: an event is released only once both have read it', async () => {
    const channel = new EventChannel<string>()
    const a = channel[Symbol.asyncIterator]()
    const b = channel[Symbol.asyncIterator]()
    const first = [a.next(), b.next()] // both attached, waiting
    await Promise.resolve()
    channel.push('x')
    expect((await Promise.all(first)).map((r) => r.value)).toEqual(['x', 'x'])
    expect(channel.size).toBe(0)
    channel.push('y')
    expect((await a.next()).value).toBe('y')
    expect(channel.size).toBe(1) // b has not read it yet
    expect((await b.next()).value).toBe('y')
    expect(channel.size).toBe(0)
    await Promise.all([a.return?.(), b.return?.()])
  })

  test('a capacity that is not a positive integer is a ValidationError', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) {
      expect(() => new EventChannel({ capacity })).toThrow(ValidationError)
    }
  })
})
