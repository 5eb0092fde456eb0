import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseWith, RevisionConflictError, ValidationError } from '@contextkit/core'
import { stateStoreChecks } from '@contextkit/core/testing'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import * as z from 'zod'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { StateConflictError } from './errors.js'
import { type FileStateStoreOptions, fileStateStore } from './file-state-store.js'
import type { StateFileLoad } from './state-file.js'
import { jsonStateFormat } from './state-format.js'

let work: Awaited<ReturnType<typeof tempDir>>
let dir: string
const clock = () => Date.parse('2026-03-01T12:00:00.000Z')
beforeEach(async () => {
  work = await tempDir('state-store')
  dir = work.dir
})
afterEach(() => work.cleanup())

const NoteSchema = z.strictObject({ sessionId: z.string(), tags: z.array(z.string()) })
type Note = z.infer<typeof NoteSchema>
const notes = jsonStateFormat<Note>((value) => parseWith(NoteSchema, value, 'note'))
const state = (sessionId = 's'): Note => ({ sessionId, tags: [] })

describe('fileStateStore behind the StateStore contract', () => {
  const perAgent = () => fileStateStore({ path: (id) => join(dir, `${id}.json`) })
  for (const check of stateStoreChecks(perAgent)) test(check.name, check.run)
})

describe('fileStateStore', () => {
  test('load/save with revisions; a stale expectedRevision is a RevisionConflictError', async () => {
    const store = fileStateStore({ path: join(dir, 'state.json'), format: notes, now: clock })
    expect(await store.load('a')).toBeNull()
    expect(await store.save('a', state(), { expectedRevision: 0 })).toEqual({ revision: 1 })
    expect(await store.save('a', state('two'))).toEqual({ revision: 2 })
    const loaded = await store.load('a')
    expect(loaded?.revision).toBe(2)
    expect(loaded?.state.sessionId).toBe('two')
    const error = await store.save('a', state(), { expectedRevision: 1 }).catch((e: unknown) => e)
    expect(RevisionConflictError.isInstance(error)).toBe(true)
    expect(StateConflictError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({
      expectedRevision: 1,
      actualRevision: 2,
      code: 'store_files_state_conflict',
    })
  })

  test('a function path gives each agent its own file; unsafe agent ids are refused', async () => {
    const store = fileStateStore({
      path: (id) => join(dir, `${id}.json`),
      format: notes,
      now: clock,
    })
    await store.save('alpha', state('a'))
    await store.save('beta', state('b'))
    expect((await store.load('alpha'))?.state.sessionId).toBe('a')
    expect((await store.load('beta'))?.state.sessionId).toBe('b')
    for (const id of ['../escape', 'a/b', '', '..']) {
      expect(ValidationError.isInstance(await store.load(id).catch((e: unknown) => e))).toBe(true)
      expect(
        ValidationError.isInstance(await store.save(id, state()).catch((e: unknown) => e)),
      ).toBe(true)
    }
    expect(() => fileStateStore({ path: 42 } as unknown as FileStateStoreOptions<Note>)).toThrow(
      ValidationError,
    )
  })

  test('onLoad sees the source and the problems of a corrupt file', async () => {
    const path = join(dir, 'state.json')
    const seen: StateFileLoad<unknown>[] = []
    const store = fileStateStore({ path, onLoad: (r) => seen.push(r) })
    await writeFile(path, '{ not json')
    expect(await store.load('a')).toBeNull()
    expect(seen[0]?.source).toBe('none')
    expect(seen[0]?.problems.map((p) => p.code)).toEqual(['store_files_state_corrupt'])
  })
})

describe('jsonStateFormat', () => {
  test('the file is an envelope: revision, time of the save, the state', async () => {
    const path = join(dir, 'note.json')
    const store = fileStateStore({ path, format: notes, now: clock })
    await store.save('a', { sessionId: 'x', tags: ['é'] })
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      revision: 1,
      updatedAt: '2026-03-01T12:00:00.000Z',
      state: { sessionId: 'x', tags: ['é'] },
    })
  })

  test('a state its parse refuses is not saved; a file it refuses is moved aside', async () => {
    const path = join(dir, 'note.json')
    const seen: StateFileLoad<Note>[] = []
    const store = fileStateStore({ path, format: notes, onLoad: (r) => seen.push(r) })
    const refused = await store.save('a', { nope: 1 } as never).catch((e: unknown) => e)
    expect(ValidationError.isInstance(refused)).toBe(true)
    await writeFile(path, JSON.stringify({ revision: 1, updatedAt: 'now', state: { nope: 1 } }))
    expect(await store.load('a')).toBeNull()
    expect(seen[0]?.quarantined).toHaveLength(1)
    expect(() => jsonStateFormat(42 as never)).toThrow(ValidationError)
  })
})
