import { textMessage, textOf } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import type { ModelProvider, ProviderEvent } from '../provider/contract.js'
import { scriptedProvider } from '../testing/scripted-provider.js'
import { runAgent } from './run-agent.js'

const DELTAS = 5_000
const CAPACITY = 1_024

/** A scripted reply of `DELTAS` one-character deltas, counting the events the loop pulled. */
function countedProvider(): { provider: ModelProvider; pulled(): number } {
  const inner = scriptedProvider(['x'.repeat(DELTAS)], { chunkChars: 1, record: false })
  let pulled = 0
  const provider: ModelProvider = {
    name: 'counted',
    async *stream(request, options): AsyncGenerator<ProviderEvent> {
      for await (const event of inner.stream(request, options)) {
        pulled++
        yield event
      }
    },
  }
  return { provider, pulled: () => pulled }
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A run over {@link countedProvider}: the run and how many provider events it pulled. */
function countedRun(): { run: ReturnType<typeof runAgent>; pulled(): number } {
  const { provider, pulled } = countedProvider()
  const run = runAgent({
    provider,
    model: 'claude-haiku-4-5',
    messages: [textMessage('user', 'go')],
  })
  return { run, pulled }
}

describe('backpressure from run.events', () => {
  test('a reader that pauses holds the stream at `capacity` events; it goes on when reading resumes', async () => {
    const { run, pulled } = countedRun()
    const events = run.events[Symbol.asyncIterator]()
    await events.next()
    let settled = false
    void run.result.then(() => {
      settled = true
    })
    await tick(100)
    // the reader is one event in: the loop pulled at most what fills the channel, and waits
    expect(pulled()).toBeLessThanOrEqual(CAPACITY + 1)
    expect(pulled()).toBeGreaterThan(CAPACITY - 10)
    expect(settled).toBe(false)
    let deltas = 0
    for (let e = await events.next(); !e.done; e = await events.next()) {
      if (e.value.type === 'text-delta') deltas++
    }
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(deltas).toBe(DELTAS)
    expect(textOf(result.messages.at(-1) ?? textMessage('assistant', ''))).toBe('x'.repeat(DELTAS))
  })

  test('abort while held back by a paused reader: settles aborted, with what arrived', async () => {
    const { run, pulled } = countedRun()
    const events = run.events[Symbol.asyncIterator]()
    await events.next()
    await tick(50)
    const held = pulled()
    run.abort()
    const result = await run.result
    expect(result.stopReason).toBe('aborted')
    expect(pulled()).toBe(held)
    // the interrupted reply is reported with the text that arrived before the hold
    let partial: string | undefined
    for (let e = await events.next(); !e.done; e = await events.next()) {
      if (e.value.type === 'step-end') partial = textOf(e.value.message)
    }
    expect(partial?.length).toBeGreaterThan(CAPACITY - 10)
    expect(partial?.length).toBeLessThan(DELTAS)
  })

  test('a reader that stops with break no longer holds the run back; neither does no reader', async () => {
    const read = countedRun()
    for await (const e of read.run.events) if (e.type === 'text-delta') break
    expect((await read.run.result).stopReason).toBe('end_turn')
    expect(read.pulled()).toBe(DELTAS + 1)

    const unread = countedRun()
    expect((await unread.run.result).stopReason).toBe('end_turn')
    expect(unread.pulled()).toBe(DELTAS + 1)
  })
})
