import { link, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { UnsafeWriteError } from '@contextkit/core/node'
import { sessionHeader } from '@contextkit/core/store'
import { messageEntries } from '@contextkit/core/testing'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { SessionIoError } from './errors.js'
import { jsonlSessionStore } from './jsonl-store.js'

// A workspace the user did not write may plant links where the store keeps its files.
let work: Awaited<ReturnType<typeof tempDir>>
let workspace: string
let outside: string
beforeEach(async () => {
  work = await tempDir('jsonl-links')
  workspace = join(work.dir, 'ws')
  outside = join(work.dir, 'outside')
  await mkdir(workspace)
  await mkdir(outside)
})
afterEach(() => work.cleanup())

const batch = (id: string) => [sessionHeader(id), ...messageEntries(id, 2)]

async function refusal(p: Promise<unknown>): Promise<SessionIoError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(SessionIoError.isInstance(error)).toBe(true)
  expect(UnsafeWriteError.isInstance((error as SessionIoError).cause)).toBe(true)
  return error as SessionIoError
}

test('a planted symlinked .contextkit/ is refused: 0 bytes written outside', async () => {
  await symlink(outside, join(workspace, '.contextkit'))
  const store = jsonlSessionStore(join(workspace, '.contextkit', 'sessions'), { root: workspace })
  await refusal(store.append('main', batch('main')))
  await mkdir(join(outside, 'sessions'))
  await writeFile(join(outside, 'sessions', 'main.jsonl'), `${JSON.stringify(batch('main')[0])}\n`)
  await refusal(store.append('main', batch('main')))
  await refusal(store.load('main'))
  await refusal(store.delete('main'))
  expect(await readdir(join(outside, 'sessions'))).toEqual(['main.jsonl'])
  expect(
    (await readFile(join(outside, 'sessions', 'main.jsonl'), 'utf8')).split('\n'),
  ).toHaveLength(2)
})

test('a <id>.jsonl that is a symlink or a hard link is refused; its target is untouched', async () => {
  const dir = join(workspace, 'sessions')
  const store = jsonlSessionStore(dir)
  await store.append('ok', batch('ok'))
  await writeFile(join(outside, 'victim.jsonl'), 'keep\n')
  await symlink(join(outside, 'victim.jsonl'), join(dir, 'soft.jsonl'))
  await link(join(outside, 'victim.jsonl'), join(dir, 'hard.jsonl'))
  const soft = await refusal(store.append('soft', batch('soft')))
  expect(soft.message).toContain('soft.jsonl')
  await refusal(store.append('hard', batch('hard')))
  await refusal(store.load('soft'))
  expect(await readFile(join(outside, 'victim.jsonl'), 'utf8')).toBe('keep\n')
  expect((await store.load('ok')).entries).toHaveLength(3)
})

test('root must hold dir', () => {
  expect(() => jsonlSessionStore(join(work.dir, 'elsewhere'), { root: workspace })).toThrow(
    /options.root/,
  )
})
