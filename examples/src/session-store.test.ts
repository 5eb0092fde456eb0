import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { textMessage, ValidationError } from '@contextkit/core'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { jsonlSessionStore } from './session-store.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'session-store-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

test('a missing file is an empty session; appended messages come back in order', async () => {
  const store = jsonlSessionStore(join(dir, 'nested', 's.jsonl'))
  expect(await store.load()).toEqual([])
  await store.append([textMessage('user', 'hi')])
  await store.append([textMessage('assistant', 'hello'), textMessage('user', 'bye')])
  expect((await store.load()).map((m) => m.content[0])).toEqual([
    { type: 'text', text: 'hi' },
    { type: 'text', text: 'hello' },
    { type: 'text', text: 'bye' },
  ])
})

test('a line that is not JSON or not a message is a ValidationError naming the line', async () => {
  const path = join(dir, 'bad.jsonl')
  await writeFile(path, `${JSON.stringify(textMessage('user', 'ok'))}\n\n{"role":"robot"}\n`)
  const error = await jsonlSessionStore(path)
    .load()
    .catch((e: unknown) => e)
  expect(ValidationError.isInstance(error)).toBe(true)
  expect(String((error as Error).message)).toContain('line 3')
  await writeFile(path, 'not json\n')
  await expect(jsonlSessionStore(path).load()).rejects.toMatchObject({ code: 'validation_error' })
})

test('an invalid message is refused before anything is written', async () => {
  const store = jsonlSessionStore(join(dir, 's.jsonl'))
  const bad = { role: 'user', content: [{ type: 'text' }] } as never
  await expect(store.append([textMessage('user', 'ok'), bad])).rejects.toMatchObject({
    code: 'validation_error',
  })
  expect(await store.load()).toEqual([])
})
