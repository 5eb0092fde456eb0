import { appendFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sessionMessageEntries } from '@contextkit/agent-loop'
import { textMessage, ValidationError } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { loadSessionMessages, runnerSessionStore } from './runner-sessions.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-sessions-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

test('a missing session is empty; appended messages come back in order', async () => {
  const store = runnerSessionStore(dir)
  expect(store.pathOf('s')).toBe(join(dir, '.contextkit', 'sessions', 's.jsonl'))
  expect(await loadSessionMessages(store, 's')).toEqual({ messages: [], warnings: [] })
  const first = sessionMessageEntries([textMessage('user', 'hi')])
  await store.append('s', [sessionHeader('s'), ...first])
  await store.append(
    's',
    sessionMessageEntries([textMessage('assistant', 'hello'), textMessage('user', 'bye')], {
      parentId: first[0]!.id,
    }),
  )
  const { messages } = await loadSessionMessages(store, 's')
  expect(messages.map((m) => m.content[0])).toEqual([
    { type: 'text', text: 'hi' },
    { type: 'text', text: 'hello' },
    { type: 'text', text: 'bye' },
  ])
})

test('a line that is not JSON or not an entry is skipped with a warning naming the line', async () => {
  const store = runnerSessionStore(dir)
  await store.append('bad', [
    sessionHeader('bad'),
    ...sessionMessageEntries([textMessage('user', 'ok')]),
  ])
  await appendFile(store.pathOf('bad'), 'not json\n{"type":"robot"}\n')
  await store.append('bad', sessionMessageEntries([textMessage('user', 'still ok')]))
  const { messages, warnings } = await loadSessionMessages(store, 'bad')
  expect(messages.map((m) => m.content[0])).toEqual([
    { type: 'text', text: 'ok' },
    { type: 'text', text: 'still ok' },
  ])
  expect(warnings.map((w) => [w.code, w.line])).toEqual([
    ['session_corrupt_line', 3],
    ['session_invalid_entry', 4],
  ])
})

test('an invalid message is refused before anything is written', async () => {
  const store = runnerSessionStore(dir)
  const bad = { role: 'user', content: [{ type: 'text' }] } as never
  const error = await store
    .append('s', [sessionHeader('s'), ...sessionMessageEntries([textMessage('user', 'fine'), bad])])
    .catch((e: unknown) => e)
  expect(ValidationError.isInstance(error)).toBe(true)
  expect(await loadSessionMessages(store, 's')).toEqual({ messages: [], warnings: [] })
})
