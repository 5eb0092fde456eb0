import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { ValidationError } from '@contextkit/core'
import { StateLockError } from '@contextkit/store-files'
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { emptySelfState } from './self-state.js'
import { loadSelfState, saveSelfState } from './state-file.js'
import { ensureDist, pkgDir } from './test-support.js'

const run = promisify(execFile)
let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-lock-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the state file lock (core withFileLock) from real processes', () => {
  let distUrl: string
  beforeAll(() => {
    distUrl = ensureDist()
  }, 120_000)

  test('staleLockMs 1: 4 processes × 25 concurrent updates lose none of 100', async () => {
    const path = join(dir, 'state.json')
    const fixture = join(pkgDir, 'fixtures', 'update-many.mjs')
    const writers = ['a', 'b', 'c', 'd']
    const results = await Promise.all(
      writers.map((id) =>
        run(process.execPath, [fixture, distUrl, path, id, '25', '1'], { timeout: 60_000 }),
      ),
    )
    expect(results.map((r) => r.stdout.trim()).sort()).toEqual(writers.map((w) => `done ${w}`))
    const loaded = await loadSelfState(path)
    expect(loaded.problems).toEqual([])
    // every update went through the lock: 100 revisions, 100 anchors, none lost
    expect(loaded.state?.revision).toBe(100)
    expect(loaded.state?.verbatimAnchors).toHaveLength(100)
    // nobody deleted another writer's temp file (that would have been a StateIoError above)
    expect((await readdir(dir)).sort()).toEqual(['state.json', 'state.json.bak'])
  }, 90_000)

  test('lock options are checked by the plain functions: typed errors naming the option', async () => {
    const path = join(dir, 'state.json')
    for (const [name, value] of [
      ['lockTimeoutMs', Number.NaN],
      ['lockTimeoutMs', '5000'],
      ['lockTimeoutMs', 1e308],
      ['staleLockMs', -1],
      ['staleLockMs', Number.NaN],
    ] as const) {
      for (const call of [
        () => saveSelfState(path, emptySelfState('s'), { [name]: value }),
        () => loadSelfState(path, { [name]: value }),
      ]) {
        const error = await call().catch((e: unknown) => e)
        expect(ValidationError.isInstance(error), `${name}=${value}`).toBe(true)
        expect((error as ValidationError).issues.map((i) => i.path)).toContain(name)
      }
    }
    expect(existsSync(path)).toBe(false)
  })

  test('a lock timeout is a StateLockError', async () => {
    const path = join(dir, 'state.json')
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: 1, host: 'elsewhere', token: 't', createdAt: Date.now() }),
    )
    const error = await saveSelfState(path, emptySelfState('s'), { lockTimeoutMs: 100 }).catch(
      (e: unknown) => e,
    )
    expect(StateLockError.isInstance(error)).toBe(true)
  })
})

describe('writers killed with SIGKILL in a loop (real processes)', () => {
  let distUrl: string
  beforeAll(() => {
    distUrl = ensureDist()
  }, 120_000)

  /** Spawn a writer; resolves once it has loaded the package and waits for "go" on stdin. */
  function spawnWriter(path: string, id: string, mode: 'save' | 'lock'): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      [join(pkgDir, 'fixtures', 'save-forever.mjs'), distUrl, path, id, mode],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    )
    return new Promise((resolve, reject) => {
      child.once('error', reject)
      child.once('exit', (code) => reject(new Error(`writer ${id} exited early (${code})`)))
      child.stdout?.once('data', () => resolve(child))
    })
  }

  /** Poll (every ms) until `lockPath` exists or `withinMs` has passed. */
  async function lockSeen(lockPath: string, withinMs: number): Promise<void> {
    const until = Date.now() + withinMs
    while (!existsSync(lockPath) && Date.now() < until) await sleep(1)
  }

  async function kill9(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }

  test('24 rounds: writers killed mid-save or mid-lock never block the next save', async () => {
    const path = join(dir, 'state.json')
    // 24 rounds: at least 7 of them kill a writer holding the lock (asserted below), enough to
    // hit each moment of a save; 40 rounds (two Node processes each) ran past 120 s on a
    // loaded 2-core machine
    const rounds = 24
    const pair = (round: number) =>
      Promise.all([
        spawnWriter(path, `w${round}-lock`, 'lock'),
        spawnWriter(path, `w${round}-save`, 'save'),
      ])
    let locksLeft = 0
    let next = pair(0)
    for (let round = 0; round < rounds; round++) {
      const writers = await next
      try {
        for (const w of writers) w.stdin?.write('go\n')
        // Wait until the writers are at work (a lock file appears; on a loaded machine, or on
        // Node 22/24, a writer can take longer than any fixed sleep to get going), then let them
        // work a few ms more, so the kill lands at a different point each round.
        await lockSeen(`${path}.lock`, 2_000)
        await sleep(Math.floor(Math.random() * 25))
      } finally {
        await Promise.all(writers.map(kill9))
      }
      // The next pair loads while this round is checked (they wait for "go").
      if (round + 1 < rounds) next = pair(round + 1)
      if (existsSync(`${path}.lock`)) locksLeft++
      // Default options: a 5 s lock timeout. An orphaned lock must be broken within it, whatever
      // moment the kill hit (an empty lock file used to block every save for 30 s).
      const saved = await saveSelfState(path, emptySelfState(`parent-${round}`))
      expect(saved.sessionId).toBe(`parent-${round}`)
      const loaded = await loadSelfState(path)
      expect(loaded.problems).toEqual([])
      expect(loaded.state?.sessionId).toBe(`parent-${round}`)
    }
    // The kills did hit writers holding the lock (otherwise this test would prove nothing).
    expect(locksLeft).toBeGreaterThan(rounds / 4)
    // Whatever the kills left (temp files, locks moved aside) was swept: only state and backup.
    expect((await readdir(dir)).sort()).toEqual(['state.json', 'state.json.bak'])
  }, 120_000)
})
