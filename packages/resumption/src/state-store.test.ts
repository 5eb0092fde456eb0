import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createRunInfo,
  createTurnContext,
  getModelInfo,
  memoryTrace,
  runFinalize,
  runPrepare,
  type StateStore,
  textMessage,
} from '@contextkit/core'
import { stateStoreChecks } from '@contextkit/core/testing'
import { fileStateStore } from '@contextkit/store-files'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { reply } from '../../../test-utils/messages.js'
import { addAnchor } from './capture.js'
import { resumption } from './middleware.js'
import { emptySelfState, type SelfState } from './self-state.js'
import { selfStateFormat } from './state-file.js'

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
/** store-files' state file per agent, in the self-state format. */
const selfStateFiles = () =>
  fileStateStore({ path: (id) => join(dir, `${id}.json`), format: selfStateFormat, now: clock })

describe('self-state files behind the StateStore contract', () => {
  const checks = stateStoreChecks(selfStateFiles, {
    sample: (n) => state(`s${n}`),
    // each save stamps the state with its revision and time
    comparable: ({ revision: _r, updatedAt: _u, ...rest }) => rest,
  })
  for (const check of checks) {
    test(check.name, check.run)
  }
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
    const file = fileStateStore({
      path: join(dir, 'state.json'),
      format: selfStateFormat,
      now: clock,
    })
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
    const file = fileStateStore({
      path: join(dir, 'state.json'),
      format: selfStateFormat,
      now: clock,
    })
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
      expect.objectContaining({
        source: 'resumption.finalize',
        code: 'store_files_state_conflict',
      }),
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
