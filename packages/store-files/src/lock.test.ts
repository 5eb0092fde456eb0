import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { withFileLock } from '@contextkit/core/node'
import { sessionHeader } from '@contextkit/core/store'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deadPid } from '../../../test-utils/processes.js'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { SessionLockError } from './errors.js'
import { jsonlSessionStore } from './jsonl-store.js'

let work: Awaited<ReturnType<typeof tempDir>>
let n = 0

beforeAll(async () => {
  work = await tempDir('lock')
})
afterAll(() => work.cleanup())

/** A store in a fresh directory whose session `s` has a lock file with `content`. */
async function lockedStore(content: string, options = {}) {
  const dir = join(work.dir, `d${n++}`)
  await mkdir(dir, { recursive: true })
  const store = jsonlSessionStore(dir, { lockTimeoutMs: 300, ...options })
  const lockPath = `${store.pathOf('s')}.lock`
  await writeFile(lockPath, content)
  return { store, lockPath, dir }
}

const info = (pid: number, createdAt: number, host = hostname()) =>
  JSON.stringify({ pid, host, token: `${pid}-t`, createdAt })

describe('session lock files', () => {
  test('a lock left by a dead process on this host is broken at once', async () => {
    const { store, dir } = await lockedStore(info(await deadPid(), Date.now()), {
      lockStaleMs: 600_000,
    })
    await store.append('s', [sessionHeader('s')])
    expect((await store.load('s')).entries).toHaveLength(1)
    expect((await readdir(dir)).sort()).toEqual(['s.jsonl'])
  })

  test('a fresh lock held by a live process makes append wait, then fail with SessionLockError', async () => {
    const { store } = await lockedStore(info(process.pid, Date.now()))
    const started = Date.now()
    await expect(store.append('s', [sessionHeader('s')])).rejects.toSatisfy((e) =>
      SessionLockError.isInstance(e),
    )
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(await store.load('s')).toEqual({ entries: [], warnings: [] })
  })

  test('a lock older than lockStaleMs is broken when its live-looking holder cannot be verified (no start time)', async () => {
    const { store } = await lockedStore(info(process.pid, Date.now() - 5_000), {
      lockStaleMs: 1_000,
    })
    await store.append('s', [sessionHeader('s')])
    expect((await store.load('s')).entries).toHaveLength(1)
  })

  test('a lock from another host is judged by age only', async () => {
    const dead = await deadPid()
    const fresh = await lockedStore(info(dead, Date.now(), 'elsewhere'))
    await expect(fresh.store.append('s', [sessionHeader('s')])).rejects.toSatisfy((e) =>
      SessionLockError.isInstance(e),
    )
    const old = await lockedStore(info(dead, Date.now() - 60_000, 'elsewhere'), {
      lockStaleMs: 1_000,
    })
    await old.store.append('s', [sessionHeader('s')])
  })

  test('an unreadable lock file is judged by its modification time', async () => {
    const fresh = await lockedStore('{"half')
    await expect(fresh.store.append('s', [sessionHeader('s')])).rejects.toSatisfy((e) =>
      SessionLockError.isInstance(e),
    )
    const old = await lockedStore('', { lockStaleMs: 1_000 })
    const past = new Date(Date.now() - 60_000)
    await utimes(old.lockPath, past, past)
    await old.store.append('s', [sessionHeader('s')])
  })

  test('callers in one process take turns and each sees the others finished', async () => {
    const lockPath = join(work.dir, `queue-${n++}.lock`)
    let inside = 0
    let most = 0
    const order: number[] = []
    await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        withFileLock(
          lockPath,
          async () => {
            inside++
            most = Math.max(most, inside)
            await new Promise((resolve) => setTimeout(resolve, 1))
            order.push(k)
            inside--
          },
          { timeoutMs: 5_000, staleMs: 10_000 },
        ),
      ),
    )
    expect(most).toBe(1)
    expect(order).toEqual(Array.from({ length: 20 }, (_, k) => k))
  })

  test('a failing critical section releases the lock', async () => {
    const lockPath = join(work.dir, `fail-${n++}.lock`)
    const options = { timeoutMs: 200, staleMs: 10_000 }
    await expect(
      withFileLock(lockPath, () => Promise.reject(new Error('boom')), options),
    ).rejects.toThrow('boom')
    await expect(withFileLock(lockPath, async () => 'again', options)).resolves.toBe('again')
  })
})
