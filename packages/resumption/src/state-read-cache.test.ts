import { readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rename, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRunInfo, createTurnContext, getModelInfo, memoryTrace } from '@contextkit/core'
import { createFileReadCache, type FileReadCache } from '@contextkit/core/node'
import type { Revisioned } from '@contextkit/store-files'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { resumption } from './middleware.js'
import { emptySelfState, type SelfState } from './self-state.js'
import { loadSelfStateCached, saveSelfState } from './state-file.js'

// The middleware keeps its last read of the state file and reuses it while a stat shows the
// file unchanged. These tests change the file in every way a writer can and expect the change.
let dir: string
let path: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-resumption-cache-'))
  path = join(dir, 'self-state.json')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function withTail(raw: string): SelfState {
  return {
    ...emptySelfState('s1', { now: () => Date.parse('2026-03-01T12:00:00.000Z') }),
    streamTail: {
      raw,
      sessionKey: 's1',
      capturedAt: '2026-03-01T11:59:00.000Z',
      tokenCount: 4,
      counterId: 'estimate:any:x1.1',
    },
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 30))
/** The middleware's cache: the last read of one state file. */
const stateCache = (racyMs?: number) =>
  createFileReadCache<Revisioned<SelfState>>({
    maxEntries: 1,
    ...(racyMs === undefined ? {} : { racyMs }),
  })
const tailOf = async (cache: FileReadCache<Revisioned<SelfState>>) =>
  (await loadSelfStateCached(path, {}, cache)).state?.streamTail?.raw

describe('the state file read cache (core FileReadCache)', () => {
  test('an unchanged file is read once: the same frozen state comes back', async () => {
    await saveSelfState(path, withTail('first tail'))
    const cache = stateCache(0)
    const a = await loadSelfStateCached(path, {}, cache)
    const b = await loadSelfStateCached(path, {}, cache)
    expect(b.state).toBe(a.state)
    expect(b.source).toBe('file')
    expect(Object.isFrozen(a.state)).toBe(true)
    expect(Object.isFrozen(a.state?.streamTail)).toBe(true)
  })

  test('a file rewritten in place, same size, is read again', async () => {
    await saveSelfState(path, withTail('first tail'))
    const cache = stateCache(0)
    expect(await tailOf(cache)).toBe('first tail')
    await tick()
    const text = readFileSync(path, 'utf8')
    const changed = text.replace('first tail', 'other tail')
    expect(changed.length).toBe(text.length)
    writeFileSync(path, changed)
    expect(await tailOf(cache)).toBe('other tail')
  })

  test('a file replaced by rename with the old times is read again (a new inode)', async () => {
    await saveSelfState(path, withTail('first tail'))
    const cache = stateCache(0)
    expect(await tailOf(cache)).toBe('first tail')
    const text = readFileSync(path, 'utf8')
    const next = join(dir, 'next.json')
    await writeFile(next, text.replace('first tail', 'other tail'))
    const old = new Date(Date.now() - 60_000)
    await utimes(next, old, old)
    await rename(next, path)
    expect(await tailOf(cache)).toBe('other tail')
  })

  test('a removed file is missing, not served from the cache', async () => {
    await saveSelfState(path, withTail('first tail'))
    const cache = stateCache(0)
    expect(await tailOf(cache)).toBe('first tail')
    await rm(path)
    await rm(`${path}.bak`, { force: true })
    expect((await loadSelfStateCached(path, {}, cache)).state).toBeNull()
  })

  test('a file changed less than the racy window before its read is not kept', async () => {
    await saveSelfState(path, withTail('first tail'))
    const cache = stateCache()
    const a = await loadSelfStateCached(path, {}, cache)
    const b = await loadSelfStateCached(path, {}, cache)
    expect(b.state).not.toBe(a.state)
    expect(b.state).toEqual(a.state)
  })

  test('the middleware injects the tail saved by another writer between its runs', {
    timeout: 10_000,
  }, async () => {
    await saveSelfState(path, withTail('the first thought'))
    // older than the racy window, so the middleware keeps its read
    await new Promise((resolve) => setTimeout(resolve, 2100))
    const m = resumption({ path, now: () => Date.parse('2026-03-01T12:00:00.000Z') })
    const injected = async () => {
      const turn = createTurnContext({ model: getModelInfo('claude-haiku-4-5'), messages: [] })
      const out = await m.prepare!(turn, createRunInfo({ workspace: dir, trace: memoryTrace() }))
      return out.system.map((s) => s.text).join('\n')
    }
    expect(await injected()).toContain('the first thought')
    expect(await injected()).toContain('the first thought')
    await saveSelfState(path, withTail('a second thought'))
    const text = await injected()
    expect(text).toContain('a second thought')
    expect(text).not.toContain('the first thought')
  })
})
