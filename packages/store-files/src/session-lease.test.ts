import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { sessionLeaseChecks } from '@contextkit/core/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deadPid } from '../../../test-utils/processes.js'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { jsonlSessionStore } from './jsonl-store.js'
import { SESSION_LEASE_SUFFIX } from './session-lease.js'

let work: Awaited<ReturnType<typeof tempDir>>
let n = 0

beforeAll(async () => {
  work = await tempDir('lease')
})
afterAll(() => work.cleanup())

describe('jsonlSessionStore leases: core conformance', () => {
  for (const check of sessionLeaseChecks(() => jsonlSessionStore(join(work.dir, 'conf')))) {
    test(check.name, check.run, 30_000)
  }
})

/** A store in a fresh directory whose session `s` has a lease file with `content`. */
async function leasedStore(content: string) {
  const dir = join(work.dir, `d${n++}`)
  await mkdir(dir, { recursive: true })
  const store = jsonlSessionStore(dir)
  await writeFile(`${join(dir, 's')}${SESSION_LEASE_SUFFIX}`, content)
  return { store, dir }
}

const record = (fields: Record<string, unknown>) => {
  const now = new Date().toISOString()
  return JSON.stringify({
    runId: 'run_old',
    host: 'elsewhere',
    pid: 4242,
    start: null,
    token: 't-old',
    acquiredAt: now,
    renewedAt: now,
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    ttlMs: 60_000,
    ...fields,
  })
}

describe('jsonlSessionStore leases: who holds one', () => {
  test('a holder on this host whose process is gone loses its lease at once', async () => {
    const { hostname } = await import('node:os')
    const { store } = await leasedStore(record({ host: hostname(), pid: await deadPid() }))
    const attempt = await store.acquireLease('s', { runId: 'run_new' })
    expect(attempt.acquired).toBe(true)
    if (attempt.acquired) await attempt.lease.release()
  })

  test('a fresh lease of another host is kept until it expires, and named', async () => {
    const { store } = await leasedStore(record({}))
    const attempt = await store.acquireLease('s', { runId: 'run_new' })
    expect(attempt).toMatchObject({
      acquired: false,
      holder: { runId: 'run_old', host: 'elsewhere', pid: 4242, token: 't-old' },
    })
  })

  test('a lease of another host not renewed for its ttl is taken over', async () => {
    const old = new Date(Date.now() - 61_000).toISOString()
    const { store } = await leasedStore(record({ renewedAt: old, acquiredAt: old }))
    expect((await store.acquireLease('s', { runId: 'run_new' })).acquired).toBe(true)
  })

  test('an unreadable lease file (a crash leftover) counts as no lease', async () => {
    const { store } = await leasedStore('{"runId": "torn')
    expect((await store.acquireLease('s', { runId: 'run_new' })).acquired).toBe(true)
  })

  test('release removes the lease file; the session files are left alone', async () => {
    const dir = join(work.dir, `d${n++}`)
    const store = jsonlSessionStore(dir)
    const attempt = await store.acquireLease('s', { runId: 'r' })
    if (!attempt.acquired) throw new Error('not acquired')
    expect(await readdir(dir)).toContain(`s${SESSION_LEASE_SUFFIX}`)
    expect(await store.list()).toEqual([])
    await attempt.lease.release()
    expect((await readdir(dir)).filter((f) => !f.endsWith('.lock'))).toEqual([])
  })
})
