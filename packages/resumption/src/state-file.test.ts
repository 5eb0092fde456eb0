import { execFile } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ValidationError } from '@contextkit/core'
import { StateConflictError, StateCorruptError, StateIoError } from '@contextkit/store-files'
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { addAnchor } from './capture.js'
import { StateVersionError } from './errors.js'
import { emptySelfState, type SelfState, SelfStateSchema } from './self-state.js'
import { loadSelfState, saveSelfState, updateSelfState } from './state-file.js'
import { ensureDist, pkgDir } from './test-support.js'

const run = promisify(execFile)

let dir: string
let path: string
const clock = () => Date.parse('2026-03-01T12:00:00.000Z')

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-resumption-'))
  path = join(dir, 'self-state.json')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function sample(id = 's1'): SelfState {
  let state = emptySelfState(id, { now: clock })
  state = {
    ...state,
    streamTail: {
      raw: 'the thought that was still moving',
      sessionKey: id,
      capturedAt: '2026-03-01T11:59:00.000Z',
      tokenCount: 8,
      counterId: 'estimate:any:x1.1',
    },
  }
  return addAnchor(
    state,
    { raw: 'direction beats history', triggerType: 'insight' },
    { now: clock },
  )
}

describe('save and load', () => {
  test('round-trips a state, stamping revision and updatedAt', async () => {
    const saved = await saveSelfState(path, sample(), { now: clock })
    expect(saved.revision).toBe(1)
    expect(saved.updatedAt).toBe('2026-03-01T12:00:00.000Z')
    const loaded = await loadSelfState(path)
    expect(loaded.source).toBe('file')
    expect(loaded.problems).toEqual([])
    expect(loaded.state).toEqual(saved)
  })

  test('a missing file loads as no state, without problems', async () => {
    const loaded = await loadSelfState(path)
    expect(loaded).toEqual({ state: null, source: 'none', problems: [], quarantined: [] })
  })

  test('keeps the previous good copy as .bak and leaves no temp or lock files', async () => {
    const first = await saveSelfState(path, sample('a'))
    await saveSelfState(path, sample('b'))
    const bak = SelfStateSchema.parse(JSON.parse(await readFile(`${path}.bak`, 'utf8')))
    expect(bak).toEqual(first)
    expect((await readdir(dir)).sort()).toEqual(['self-state.json', 'self-state.json.bak'])
  })

  test('creates missing parent folders', async () => {
    const deep = join(dir, 'a', 'b', 'state.json')
    await saveSelfState(deep, sample())
    expect((await loadSelfState(deep)).state?.sessionId).toBe('s1')
  })

  test('rejects an invalid state with a ValidationError and writes nothing', async () => {
    const bad = { ...sample(), verbatimAnchors: [{ raw: '', triggerType: 'x', capturedAt: 'no' }] }
    const error = await saveSelfState(path, bad).catch((e: unknown) => e)
    expect(ValidationError.isInstance(error)).toBe(true)
    expect(existsSync(path)).toBe(false)
  })

  test('expectedRevision detects a save in between', async () => {
    const saved = await saveSelfState(path, sample())
    await saveSelfState(path, sample('other'))
    const error = await saveSelfState(path, sample(), { expectedRevision: saved.revision }).catch(
      (e: unknown) => e,
    )
    expect(StateConflictError.isInstance(error)).toBe(true)
    expect((await loadSelfState(path)).state?.sessionId).toBe('other')
    const ok = await saveSelfState(path, sample('third'), { expectedRevision: 2 })
    expect(ok.revision).toBe(3)
  })

  test('updateSelfState sees the current state and may decline to write', async () => {
    await saveSelfState(path, sample())
    const seen: Array<string | undefined> = []
    const result = await updateSelfState(path, (current) => {
      seen.push(current?.sessionId)
      return null
    })
    expect(seen).toEqual(['s1'])
    expect(result?.revision).toBe(1)
    expect(existsSync(`${path}.bak`)).toBe(false)
  })
})

describe('bad files', () => {
  const corruptions: Array<[string, string | Buffer]> = [
    ['truncated JSON', '{"version":1,"revision":3,"sessionId":"x'],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
    ['wrong shape', JSON.stringify({ version: 1, revision: -1, sessionId: 5 })],
    ['an array', '[1,2,3]'],
    ['empty', ''],
  ]

  for (const [what, content] of corruptions) {
    test(`${what}: falls back to .bak and moves the corrupt file aside`, async () => {
      await saveSelfState(path, sample('good'))
      await saveSelfState(path, sample('newer'))
      await writeFile(path, content)
      const loaded = await loadSelfState(path, { now: clock })
      expect(loaded.source).toBe('backup')
      expect(loaded.state?.sessionId).toBe('good')
      expect(loaded.problems.map((p) => p.code)).toEqual(['store_files_state_corrupt'])
      expect(StateCorruptError.isInstance(loaded.problems[0])).toBe(true)
      expect(loaded.quarantined).toHaveLength(1)
      const aside = loaded.quarantined[0]!
      expect(aside).toMatch(/self-state\.json\.corrupt-2026-03-01T12-00-00-000Z-/)
      expect(await readFile(aside)).toEqual(Buffer.from(content))
      expect(existsSync(path)).toBe(false)
    })
  }

  test('corrupt file and corrupt .bak: resumption is off, both kept aside, no throw', async () => {
    await writeFile(path, '{nope')
    await writeFile(`${path}.bak`, 'also nope')
    const loaded = await loadSelfState(path)
    expect(loaded.state).toBeNull()
    expect(loaded.source).toBe('none')
    expect(loaded.problems).toHaveLength(2)
    expect(loaded.quarantined).toHaveLength(2)
    const names = await readdir(dir)
    expect(names.filter((n) => n.includes('.corrupt-'))).toHaveLength(2)
  })

  test('saving over a corrupt file moves it aside instead of overwriting it', async () => {
    await saveSelfState(path, sample('older'))
    await saveSelfState(path, sample('good'))
    await writeFile(path, 'garbage that is someone’s data')
    await saveSelfState(path, sample('next'))
    const names = await readdir(dir)
    const aside = names.find((n) => n.includes('.corrupt-'))
    expect(aside).toBeDefined()
    expect(await readFile(join(dir, aside!), 'utf8')).toBe('garbage that is someone’s data')
    // .bak still holds a good state, never the garbage
    const bak = JSON.parse(await readFile(`${path}.bak`, 'utf8')) as SelfState
    expect(bak.sessionId).toBe('older')
    expect((await loadSelfState(path)).state?.sessionId).toBe('next')
  })

  test('a file from a newer version is never quarantined nor overwritten', async () => {
    const future = JSON.stringify({ version: 99, whatever: true })
    await writeFile(path, future)
    await writeFile(`${path}.bak`, JSON.stringify(sample('old')))
    const loaded = await loadSelfState(path)
    expect(loaded.state).toBeNull()
    expect(StateVersionError.isInstance(loaded.problems[0])).toBe(true)
    expect(loaded.quarantined).toEqual([])
    const error = await saveSelfState(path, sample()).catch((e: unknown) => e)
    expect(StateVersionError.isInstance(error)).toBe(true)
    expect(await readFile(path, 'utf8')).toBe(future)
  })

  test('a file over the caller’s maxBytes is reported and left in place, never quarantined', async () => {
    const saved = await saveSelfState(path, sample(), { now: clock })
    await saveSelfState(path, sample(), { now: clock })
    const before = await readFile(path, 'utf8')
    const loaded = await loadSelfState(path, { maxBytes: 100 })
    expect(loaded.state).toBeNull()
    expect(loaded.problems[0]?.code).toBe('store_files_state_corrupt')
    expect(loaded.quarantined).toEqual([])
    expect(await readFile(path, 'utf8')).toBe(before)
    expect(existsSync(`${path}.bak`)).toBe(true)
    // an update under that limit refuses rather than writing over the file
    const error = await saveSelfState(path, sample(), { maxBytes: 100 }).catch((e: unknown) => e)
    expect(StateCorruptError.isInstance(error)).toBe(true)
    expect(await readFile(path, 'utf8')).toBe(before)
    expect((await loadSelfState(path)).state?.revision).toBe(saved.revision + 1)
  })

  test('maxBytes 0 (or any invalid option) is a ValidationError; nothing is moved', async () => {
    await saveSelfState(path, sample())
    await saveSelfState(path, sample())
    for (const maxBytes of [0, -1, 1.5, Number.NaN]) {
      const error = await loadSelfState(path, { maxBytes }).catch((e: unknown) => e)
      expect(ValidationError.isInstance(error)).toBe(true)
      expect((error as ValidationError).issues.map((i) => i.path)).toContain('maxBytes')
    }
    expect((await readdir(dir)).sort()).toEqual(['self-state.json', 'self-state.json.bak'])
    expect((await loadSelfState(path)).state?.revision).toBe(2)
  })

  test('a directory at the path is an IO problem, not moved, no throw', async () => {
    await mkdir(path)
    const loaded = await loadSelfState(path)
    expect(loaded.state).toBeNull()
    expect(StateIoError.isInstance(loaded.problems[0])).toBe(true)
    expect(statSync(path).isDirectory()).toBe(true)
  })

  test('a UTF-8 BOM is tolerated', async () => {
    await writeFile(path, `\uFEFF${JSON.stringify(sample())}`)
    const loaded = await loadSelfState(path)
    expect(loaded.source).toBe('file')
    expect(loaded.state?.sessionId).toBe('s1')
  })
})

describe('concurrent saves from real processes', () => {
  let distUrl: string
  beforeAll(() => {
    distUrl = ensureDist()
  }, 120_000)

  test('parallel writers never leave a torn or mixed file; one complete write wins', async () => {
    const fixture = join(pkgDir, 'fixtures', 'save-many.mjs')
    const writers = ['alpha', 'bravo', 'charlie', 'delta']
    const saves = 25
    const children = writers.map((id) =>
      run(process.execPath, [fixture, distUrl, path, id, String(saves)], { timeout: 45_000 }),
    )
    // Read while they write: every observed file must be one writer's whole state.
    const observed = new Set<string>()
    let reading = true
    const reader = (async () => {
      while (reading) {
        const loaded = await loadSelfState(path)
        if (loaded.state) {
          assertSingleWriter(loaded.state)
          observed.add(loaded.state.sessionId)
        }
        expect(loaded.problems).toEqual([])
      }
    })()
    const results = await Promise.all(children)
    reading = false
    await reader
    expect(results.map((r) => r.stdout.trim()).sort()).toEqual(writers.map((w) => `done ${w}`))

    const final = await loadSelfState(path)
    expect(final.source).toBe('file')
    assertSingleWriter(final.state!)
    expect(writers).toContain(final.state!.sessionId)
    // Every save went through the lock: the revision counts all of them.
    expect(final.state!.revision).toBe(writers.length * saves)
    assertSingleWriter(JSON.parse(await readFile(`${path}.bak`, 'utf8')) as SelfState)
    const leftovers = (await readdir(dir)).filter((n) => n !== 'self-state.json')
    expect(leftovers).toEqual(['self-state.json.bak'])
    expect(observed.size).toBeGreaterThan(0)
  }, 60_000)

  test('a lock left by a dead process is broken', async () => {
    const child = await run(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
    const deadPid = Number(child.stdout)
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ host: hostname(), pid: deadPid, token: 'dead', createdAt: Date.now() }),
    )
    const saved = await saveSelfState(path, sample(), { lockTimeoutMs: 2000 })
    expect(saved.revision).toBe(1)
    expect(existsSync(`${path}.lock`)).toBe(false)
  })

  test('a live lock makes the writer wait, then time out with a typed error', async () => {
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: process.pid, token: 'mine', createdAt: Date.now() }),
    )
    const error = await saveSelfState(path, sample(), { lockTimeoutMs: 150 }).catch(
      (e: unknown) => e,
    )
    expect((error as { code?: string }).code).toBe('store_files_state_lock')
    expect(existsSync(path)).toBe(false)
    // an old lock counts as abandoned
    const saved = await saveSelfState(path, sample(), { lockTimeoutMs: 2000, staleLockMs: 0 })
    expect(saved.revision).toBe(1)
  })
})

function assertSingleWriter(state: SelfState): void {
  const id = state.sessionId
  expect(SelfStateSchema.safeParse(state).success).toBe(true)
  expect(state.cwd).toBe(`/cwd/${id}`)
  expect(state.branch).toBe(`branch-${id}`)
  expect(state.streamTail?.sessionKey).toBe(id)
  expect(state.streamTail?.counterId).toBe(`counter-${id}`)
  expect(state.streamTail?.raw.startsWith(`${id} `.repeat(400))).toBe(true)
  expect(state.verbatimAnchors.map((a) => a.triggerType)).toEqual(Array(5).fill(id))
  expect(state.verbatimAnchors.every((a) => a.raw.startsWith(`${id} anchor`))).toBe(true)
}

describe('a save the loader would reject is refused at save time', () => {
  test('a state larger than maxBytes (1.5 MB against 1 MiB) is a ValidationError; old file kept', async () => {
    await saveSelfState(path, sample())
    const big = { ...sample(), cwd: 'x'.repeat(1_500_000) }
    const error = await saveSelfState(path, big).catch((e: unknown) => e)
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as ValidationError).issues[0]?.path).toBe('state')
    const loaded = await loadSelfState(path)
    expect(loaded.problems).toEqual([])
    expect(loaded.state?.revision).toBe(1)
  })

  test('a revision past Number.MAX_SAFE_INTEGER is refused; the file stays loadable', async () => {
    const top = { ...sample(), revision: Number.MAX_SAFE_INTEGER }
    await writeFile(path, JSON.stringify(top))
    const error = await saveSelfState(path, sample()).catch((e: unknown) => e)
    expect(ValidationError.isInstance(error)).toBe(true)
    const loaded = await loadSelfState(path)
    expect(loaded.quarantined).toEqual([])
    expect(loaded.state?.revision).toBe(Number.MAX_SAFE_INTEGER)
  })

  test('an explicit version 0 (or any other wrong version) is refused', async () => {
    for (const version of [0, 2, -1]) {
      const error = await saveSelfState(path, { ...sample(), version } as never).catch(
        (e: unknown) => e,
      )
      expect(ValidationError.isInstance(error)).toBe(true)
    }
    expect(existsSync(path)).toBe(false)
  })

  test('a null state is a ValidationError, not a null result (guards.test counterexample)', async () => {
    await expect(saveSelfState(path, null as never, { raw: '' } as never)).rejects.toThrow(
      'saveSelfState: state must be a SelfState',
    )
  })
})
