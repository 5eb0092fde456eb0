import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createRunInfo,
  createTurnContext,
  getModelInfo,
  memoryTrace,
  RevisionConflictError,
  runFinalize,
  runPrepare,
  type StateStore,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { reply } from '../../../test-utils/messages.js'
import { addAnchor } from './capture.js'
import { StateConflictError } from './errors.js'
import { type FileStateStoreOptions, fileStateStore } from './file-state-store.js'
import { resumption } from './middleware.js'
import { emptySelfState, type SelfState } from './self-state.js'
import type { LoadResult } from './state-file.js'

let dir: string
const at = '2026-03-01T12:00:00.000Z'
const clock = () => Date.parse(at)
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-resumption-store-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const model = getModelInfo('claude-sonnet-4-6')
const turn = () => createTurnContext({ model, messages: [textMessage('user', 'go on')] })
const state = (sessionId = 's'): SelfState => emptySelfState(sessionId, { now: clock })

describe('fileStateStore', () => {
  test('load/save with revisions; a stale expectedRevision is a RevisionConflictError', async () => {
    const store = fileStateStore({ path: join(dir, 'state.json'), now: clock })
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
      code: 'resumption_state_conflict',
    })
  })

  test('a function path gives each agent its own file; unsafe agent ids are refused', async () => {
    const store = fileStateStore({ path: (id) => join(dir, `${id}.json`), now: clock })
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
    expect(() => fileStateStore({ path: 42 } as unknown as FileStateStoreOptions)).toThrow(
      ValidationError,
    )
  })

  test('onLoad sees the source and the problems of a corrupt file', async () => {
    const path = join(dir, 'state.json')
    const seen: LoadResult[] = []
    const store = fileStateStore({ path, onLoad: (r) => seen.push(r) })
    await writeFile(path, '{ not json')
    expect(await store.load('a')).toBeNull()
    expect(seen[0]?.source).toBe('none')
    expect(seen[0]?.problems.map((p) => p.code)).toEqual(['resumption_state_corrupt'])
  })
})

/** A store that lets a rival worker save right before each of the first `rivals` saves. */
function contested(
  inner: StateStore<SelfState>,
  rivals: number,
  rival: (current: SelfState | null) => SelfState,
): StateStore<SelfState> {
  let left = rivals
  return {
    load: (id) => inner.load(id),
    async save(id, value, options) {
      if (left-- > 0) {
        const current = await inner.load(id)
        await inner.save(id, rival(current?.state ?? null))
      }
      return inner.save(id, value, options)
    },
  }
}

describe('the middleware on a StateStore', () => {
  test('a conflicting save is redone once on top of the other write: both survive', async () => {
    const file = fileStateStore({ path: join(dir, 'state.json'), now: clock })
    const store = contested(file, 1, (current) =>
      addAnchor(current ?? state('rival'), { raw: 'the rival kept this', capturedAt: at }),
    )
    const mw = resumption({ store, agentId: 'agent-1', now: clock })
    const trace = memoryTrace()
    await runFinalize(
      [mw],
      reply('and then we ship the parser'),
      turn(),
      createRunInfo({ sessionId: 'me', trace }),
    )
    const saved = await file.load('agent-1')
    expect(saved?.state.streamTail?.raw).toBe('and then we ship the parser')
    expect(saved?.state.verbatimAnchors.map((a) => a.raw)).toEqual(['the rival kept this'])
    expect(saved?.revision).toBe(2)
    expect(trace.byStage('resumption:captured')[0]?.data).toMatchObject({
      action: 'capture',
      revision: 2,
      retried: true,
    })
    expect(trace.byStage('warning')).toEqual([])
  })

  test('a second conflict is a warning and overwrites nothing', async () => {
    const file = fileStateStore({ path: join(dir, 'state.json'), now: clock })
    let n = 0
    const store = contested(file, 2, (current) =>
      addAnchor(current ?? state('rival'), { raw: `rival ${++n}`, capturedAt: at }),
    )
    const mw = resumption({ store, now: clock })
    const trace = memoryTrace()
    await runFinalize([mw], reply('my tail'), turn(), createRunInfo({ sessionId: 'me', trace }))
    const saved = await file.load('default')
    expect(saved?.state.verbatimAnchors.map((a) => a.raw)).toEqual(['rival 1', 'rival 2'])
    expect(saved?.state.streamTail).toBeUndefined()
    expect(trace.byStage('warning').map((e) => e.data)).toEqual([
      expect.objectContaining({ source: 'resumption.finalize', code: 'resumption_state_conflict' }),
    ])
  })

  test('prepare reads from the store; an invalid stored value is a warning, not a crash', async () => {
    const values = new Map<string, { state: unknown; revision: number }>()
    const store: StateStore<SelfState> = {
      load: async (id) => (values.get(id) as { state: SelfState; revision: number }) ?? null,
      save: async (id, value) => {
        const revision = (values.get(id)?.revision ?? 0) + 1
        values.set(id, { state: value, revision })
        return { revision }
      },
    }
    const mw = resumption({ store, agentId: 'x', now: clock })
    await runFinalize(
      [mw],
      reply('a thought in motion'),
      turn(),
      createRunInfo({ sessionId: 'one' }),
    )
    const trace = memoryTrace()
    const next = await runPrepare([mw], turn(), createRunInfo({ sessionId: 'two', trace }))
    expect(next.system.map((s) => s.id)).toEqual(['resumption'])
    expect(trace.byStage('resumption:injected')[0]?.data).toMatchObject({
      action: 'inject',
      source: 'store',
    })
    values.set('x', { state: { version: 1, nonsense: true }, revision: 7 })
    const bad = memoryTrace()
    const skipped = await runPrepare(
      [mw],
      turn(),
      createRunInfo({ sessionId: 'three', trace: bad }),
    )
    expect(skipped.system).toEqual([])
    expect(bad.byStage('warning')[0]?.data).toMatchObject({ code: 'validation_error' })
    // the next capture replaces the invalid value by compare-and-set on its revision
    await runFinalize([mw], reply('fresh start'), turn(), createRunInfo({ sessionId: 'three' }))
    expect(values.get('x')?.revision).toBe(8)
  })
})
