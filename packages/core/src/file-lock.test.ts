import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { deadPid } from '../../../test-utils/processes.js'
import { ValidationError } from './errors.js'
import {
  FileLockIoError,
  FileLockTimeoutError,
  lockMsSchema,
  UNREADABLE_LOCK_GRACE_MS,
  withFileLock,
} from './file-lock.js'
import { ownerAlive, processAlive, processStartTime } from './process-identity.js'
import { SIDE_FILE_MIN_AGE_MS, sideFileName, sweepAbandonedSideFiles } from './side-files.js'

const run = promisify(execFile)
const fixture = fileURLToPath(new URL('../fixtures/lock-counter.ts', import.meta.url))
const linux = process.platform === 'linux'

let dir: string
let lock: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-core-lock-'))
  lock = join(dir, 'state.lock')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const owner = (fields: Record<string, unknown>) =>
  JSON.stringify({ host: hostname(), token: 't', createdAt: Date.now(), start: null, ...fields })

const attempt = (options: object) =>
  withFileLock(lock, async () => 'ran', options).catch((e: unknown) => e)

describe('withFileLock: the owner', () => {
  test('the lock file holds host, pid, start time and token while fn runs; gone after', async () => {
    const inside = await withFileLock(lock, async () => JSON.parse(await readFile(lock, 'utf8')))
    expect(inside).toMatchObject({ host: hostname(), pid: process.pid })
    expect(typeof inside.token).toBe('string')
    if (linux) expect(inside.start).toBe(await processStartTime(process.pid))
    expect(await readdir(dir)).toEqual([])
  })

  test('a lock of a dead process on this host is broken at once', async () => {
    await writeFile(lock, owner({ pid: await deadPid() }))
    expect(await attempt({ timeoutMs: 1000, staleMs: 600_000 })).toBe('ran')
  })

  test.skipIf(!linux)('a reused pid (alive, another start time) does not block', async () => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
    try {
      await new Promise((resolve) => sleeper.once('spawn', resolve))
      await writeFile(lock, owner({ pid: sleeper.pid, start: 'an-earlier-boot/12345' }))
      const started = Date.now()
      expect(await attempt({ timeoutMs: 5000, staleMs: 600_000 })).toBe('ran')
      expect(Date.now() - started).toBeLessThan(1000)
    } finally {
      sleeper.kill('SIGKILL')
    }
  })

  test.skipIf(!linux)(
    'a verified live owner is never broken by age, even with staleMs 0',
    async () => {
      const start = await processStartTime(process.pid)
      await writeFile(lock, owner({ pid: process.pid, start, createdAt: Date.now() - 3_600_000 }))
      const error = await attempt({ timeoutMs: 300, staleMs: 0 })
      expect(FileLockTimeoutError.isInstance(error)).toBe(true)
      expect(existsSync(lock)).toBe(true)
    },
  )

  test('an owner that cannot be checked (another host) is judged by age', async () => {
    await writeFile(lock, owner({ pid: 1, host: 'elsewhere' }))
    expect(FileLockTimeoutError.isInstance(await attempt({ timeoutMs: 200 }))).toBe(true)
    await writeFile(lock, owner({ pid: 1, host: 'elsewhere', createdAt: Date.now() - 60_000 }))
    expect(await attempt({ timeoutMs: 1000, staleMs: 1000 })).toBe('ran')
  })

  test('a future createdAt turns stale staleMs after it was first seen, not never', async () => {
    const future = Date.now() + 365 * 24 * 3_600_000
    await writeFile(lock, owner({ pid: 1, host: 'elsewhere', createdAt: future }))
    const started = Date.now()
    expect(await attempt({ timeoutMs: 5000, staleMs: 400 })).toBe('ran')
    const waited = Date.now() - started
    expect(waited).toBeGreaterThanOrEqual(400)
    expect(waited).toBeLessThan(2500)
  })

  test('an unreadable lock is respected during its grace, broken after it', async () => {
    await writeFile(lock, '{"pid":')
    expect(FileLockTimeoutError.isInstance(await attempt({ timeoutMs: 200 }))).toBe(true)
    const past = new Date(Date.now() - UNREADABLE_LOCK_GRACE_MS - 1000)
    await utimes(lock, past, past)
    expect(await attempt({ timeoutMs: 1000 })).toBe('ran')
  })

  test('a missing folder is a FileLockIoError; toError maps lock failures', async () => {
    const missing = join(dir, 'no', 'such.lock')
    const error = await withFileLock(missing, async () => 1).catch((e: unknown) => e)
    expect(FileLockIoError.isInstance(error)).toBe(true)
    const mapped = await withFileLock(
      missing,
      async () => 1,
      {},
      (e) => new Error(`mine: ${e.code}`),
    ).catch((e: unknown) => e)
    expect((mapped as Error).message).toBe('mine: file_lock_io')
  })
})

describe('withFileLock: options are checked at the entry', () => {
  test.each([
    ['timeoutMs', Number.NaN],
    ['timeoutMs', '5000'],
    ['timeoutMs', 1e308],
    ['timeoutMs', -1],
    ['timeoutMs', Number.POSITIVE_INFINITY],
    ['staleMs', Number.NaN],
    ['staleMs', '5000'],
    ['staleMs', 1e308],
    ['staleMs', -5],
  ])('%s = %s is a ValidationError naming the option', async (name, value) => {
    const error = await attempt({ [name]: value })
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as ValidationError).issues.map((i) => i.path)).toContain(name)
    expect(existsSync(lock)).toBe(false)
  })

  test('bad arguments are typed errors', async () => {
    await expect(withFileLock('', async () => 1)).rejects.toThrow(ValidationError)
    await expect(withFileLock(lock, 'no' as never)).rejects.toThrow(ValidationError)
    await expect(withFileLock(lock, async () => 1, { retries: 3 } as never)).rejects.toThrow(
      ValidationError,
    )
  })
})

describe('side files', () => {
  test('those of dead writers are swept; a live writer’s stay until they are very old', async () => {
    const dead = await deadPid()
    const mine = sideFileName(lock, 'tmp')
    const orphan = mine.replace(`-${process.pid}-`, `-${dead}-`)
    const unrelated = `${lock}.tmp-notes`
    for (const f of [mine, orphan, unrelated]) await writeFile(f, 'x')
    await withFileLock(lock, async () => {}, { staleMs: 1 })
    const names = (await readdir(dir)).map((n) => join(dir, n)).sort()
    expect(names).toEqual([mine, unrelated].sort())
    const old = new Date(Date.now() - SIDE_FILE_MIN_AGE_MS - 1000)
    await utimes(mine, old, old)
    await withFileLock(lock, async () => {}, { staleMs: 1 })
    expect(await readdir(dir)).toEqual(['state.lock.tmp-notes'])
  })
})

describe('real processes', () => {
  test('staleMs 1: 4 processes × 25 concurrent updates lose none of 100', async () => {
    const counter = join(dir, 'counter')
    const children = Array.from({ length: 4 }, () =>
      run(process.execPath, ['--import', 'tsx', fixture, counter, '25', '1'], { timeout: 60_000 }),
    )
    const results = await Promise.all(children)
    expect(results.map((r) => r.stdout.trim())).toEqual(['done', 'done', 'done', 'done'])
    expect(Number(await readFile(counter, 'utf8'))).toBe(100)
    expect(await readdir(dir)).toEqual(['counter'])
  }, 90_000)
})

describe('the helpers check their arguments', () => {
  test('typed errors for wrong types; the sweep and identity reads never throw', async () => {
    expect(() => sideFileName(42 as never, 'tmp')).toThrow(ValidationError)
    expect(() => sideFileName(Object.create(null), 'tmp')).toThrow(ValidationError)
    expect(() => sideFileName(lock, 'other' as never)).toThrow(ValidationError)
    await expect(ownerAlive(null as never)).rejects.toThrow(ValidationError)
    expect(() => lockMsSchema(Number.NaN)).toThrow(ValidationError)
    await expect(sweepAbandonedSideFiles(null as never)).resolves.toBeUndefined()
    expect(await processStartTime(-1)).toBeNull()
    expect(processAlive(Number.NaN)).toBe(false)
  })
})
