import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { StateLockError } from './errors.js'
import { UNREADABLE_LOCK_GRACE_MS, withFileLock } from './file-lock.js'
import { emptySelfState } from './self-state.js'
import { loadSelfState, saveSelfState } from './state-file.js'
import { ensureDist, pkgDir } from './test-support.js'

let dir: string
let lock: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-lock-'))
  lock = join(dir, 'state.json.lock')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function deadPid(): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '-e',
    'process.stdout.write(String(process.pid))',
  ])
  return Number(stdout)
}

async function ageFile(file: string, ms: number): Promise<void> {
  const past = new Date(Date.now() - ms)
  await utimes(file, past, past)
}

describe('withFileLock', () => {
  test('the lock file holds its owner while fn runs and is gone afterwards', async () => {
    const inside = await withFileLock(lock, async () => {
      const { readFile } = await import('node:fs/promises')
      return JSON.parse(await readFile(lock, 'utf8')) as Record<string, unknown>
    })
    expect(inside.pid).toBe(process.pid)
    expect(typeof inside.token).toBe('string')
    expect(typeof inside.createdAt).toBe('number')
    expect(await readdir(dir)).toEqual([])
  })

  test('an empty lock older than the grace period is broken at once', async () => {
    await writeFile(lock, '')
    await ageFile(lock, UNREADABLE_LOCK_GRACE_MS + 1000)
    expect(await withFileLock(lock, async () => 'ran', { timeoutMs: 1000 })).toBe('ran')
    expect(existsSync(lock)).toBe(false)
  })

  test('a fresh unreadable lock is respected during the grace period, then broken', async () => {
    await writeFile(lock, '{"pid":')
    const error = await withFileLock(lock, async () => 'ran', { timeoutMs: 200 }).catch(
      (e: unknown) => e,
    )
    expect(StateLockError.isInstance(error)).toBe(true)
    // The default timeout (5 s) outlasts the grace (2 s): the next writer gets through.
    expect(await withFileLock(lock, async () => 'ran')).toBe('ran')
  })

  test('side files of dead writers are swept on the next acquisition; live ones stay', async () => {
    const dead = await deadPid()
    const orphans = [
      `state.json.lock.tmp-${dead}-0123abcd`,
      `state.json.lock.stale-${dead}-89abcdef`,
    ]
    const live = `state.json.lock.tmp-${process.pid}-00000000`
    const unrelated = 'state.json.lock.tmp-notes'
    for (const name of [...orphans, live, unrelated]) await writeFile(join(dir, name), 'x')
    await withFileLock(lock, async () => {})
    expect((await readdir(dir)).sort()).toEqual([live, unrelated].sort())
    // A live writer's side file counts as abandoned once it is older than staleMs.
    await ageFile(join(dir, live), 60_000)
    await withFileLock(lock, async () => {})
    expect(await readdir(dir)).toEqual([unrelated])
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

  async function kill9(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }

  test('40 rounds: writers killed mid-save or mid-lock never block the next save', async () => {
    const path = join(dir, 'state.json')
    const rounds = 40
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
        // Let them work a few ms, so the kill lands at a different point each round.
        await sleep(5 + Math.floor(Math.random() * 30))
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
