import { expect, test } from 'vitest'
import { sseReader } from '../../../test-utils/sse-events.js'
import { InspectorChangesError } from './errors.js'
import { TOKEN_HEADER } from './security.js'
import { LiveStreams } from './sse.js'
import { startInspector } from './start-inspector.js'
import { onCleanup, run, workspace } from './test-support.js'

/** A change feed as an app writes one: subscribers in a set, `emit` calls them. */
function feed() {
  const subscribers = new Set<(sessionId?: string) => void>()
  return {
    subscribers,
    changes: (onChange: (sessionId?: string) => void) => {
      subscribers.add(onChange)
      return () => void subscribers.delete(onChange)
    },
    emit: (sessionId?: string) => {
      for (const s of subscribers) s(sessionId)
    },
  }
}

/** An hour: no stream polls again within a test, so any change event came from the feed. */
const NO_POLL_MS = 3_600_000

test('with changes, a live stream reports a new step when the feed says so, without waiting for a poll', async () => {
  const ws = await workspace()
  await run(ws, 'chat-1', [{ text: 'Hello.' }], { user: 'hi' })
  const f = feed()
  const inspector = await startInspector({
    sessions: ws.sessions,
    traces: ws.traces,
    changes: f.changes,
    pollIntervalMs: NO_POLL_MS,
  })
  onCleanup(() => inspector.close())
  expect(f.subscribers.size).toBe(1)
  const auth = { [TOKEN_HEADER]: inspector.token }
  const origin = `http://127.0.0.1:${inspector.port}`
  const session = sseReader(await fetch(`${origin}/api/sessions/chat-1/events`, { headers: auth }))
  const list = sseReader(await fetch(`${origin}/api/events`, { headers: auth }))
  onCleanup(() => session.close())
  onCleanup(() => list.close())
  const ready = await session.next()
  expect(ready.event).toBe('ready')
  expect((await list.next()).event).toBe('ready')

  await run(ws, 'chat-1', [{ text: 'Again.' }], { user: 'more' })
  // a feed naming another session wakes the list (it shows every session), and only it
  f.emit('chat-2')
  const listed = await list.next()
  expect(listed.event).toBe('change')
  f.emit('chat-1')
  const changed = await session.next()
  expect(changed).toMatchObject({ event: 'change' })
  expect(changed.data).not.toBe(ready.data)

  await inspector.close()
  expect(f.subscribers.size).toBe(0)
  f.emit('chat-1') // after close: ignored
})

test('a wake only reaches the streams of its session and the list; one during a look looks once more', async () => {
  const f = feed()
  const streams = new LiveStreams({ pollMs: NO_POLL_MS, changes: f.changes })
  onCleanup(() => streams.close())
  const looks = { s1: 0, list: 0 }
  let release: (() => void) | undefined
  const s1 = streams.response(
    async () => {
      looks.s1++
      if (looks.s1 === 2) await new Promise<void>((r) => (release = r))
      return `s1@${looks.s1}`
    },
    {},
    's1',
  )
  const list = streams.response(async () => `list@${++looks.list}`, {})
  const s1Events = sseReader(s1)
  const listEvents = sseReader(list)
  expect((await s1Events.next()).event).toBe('ready')
  expect((await listEvents.next()).event).toBe('ready')
  expect(looks).toEqual({ s1: 1, list: 1 })

  // a look starts as soon as the feed is called (poll() runs before its first await)
  f.emit('s2')
  expect(looks).toEqual({ s1: 1, list: 2 })
  expect(await listEvents.next()).toEqual({ event: 'change', data: 'list@2' })
  f.emit('s1')
  expect(looks).toEqual({ s1: 2, list: 3 })
  // s1's look is waiting: two more wakes give one look after it, not two
  f.emit('s1')
  f.emit('s1')
  expect(looks.s1).toBe(2)
  release?.()
  expect(await s1Events.next()).toEqual({ event: 'change', data: 's1@2' })
  expect(await s1Events.next()).toEqual({ event: 'change', data: 's1@3' })
  expect(looks.s1).toBe(3)
  f.emit()
  expect(looks.s1).toBe(4)
  streams.close()
  expect(f.subscribers.size).toBe(0)
})

test('changes that throws or returns no unsubscribe function is an InspectorChangesError; so is a bad option', async () => {
  const ws = await workspace()
  const boom = new Error('no listener')
  const threw = startInspector({
    sessions: ws.sessions,
    changes: () => {
      throw boom
    },
  })
  await expect(threw).rejects.toThrow(InspectorChangesError)
  await expect(threw).rejects.toMatchObject({ code: 'inspector_changes', cause: boom })
  await expect(
    startInspector({ sessions: ws.sessions, changes: (() => undefined) as never }),
  ).rejects.toThrow(/must return its unsubscribe function, got undefined/)
  await expect(
    startInspector({ sessions: ws.sessions, changes: 'listen' as never }),
  ).rejects.toMatchObject({ code: 'validation_error', message: expect.stringContaining('changes') })
  await expect(startInspector({ sessions: ws.sessions, pollIntervalMs: 0 })).rejects.toMatchObject({
    code: 'validation_error',
    message: expect.stringContaining('pollIntervalMs'),
  })
})
