import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Message, sessionMessages, textOf } from '@contextkit/core'
import { TOKEN_HEADER } from '@contextkit/inspector'
import { postgresSessionStore } from '@contextkit/store-postgres'
import { JOB_ENTRY_TYPE, type JobEntryData } from '@contextkit/worker'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type RealDatabase,
  realDatabase,
  realServer,
  realServerNote,
} from '../../../packages/store-postgres/src/test-server.js'
import { DEMO_TURNS } from '../demo-script.js'
import { type CliIO, runDemoCli } from './run-cli.js'
import { collector } from './test-support.js'
import { DEMO_QUEUE } from './workers-demo.js'

const onServer = 'url' in realServer ? describe : describe.skip

onServer(`pnpm demo --workers on a real PostgreSQL server${realServerNote}`, () => {
  let db: RealDatabase
  let dir: string
  beforeAll(async () => {
    db = await realDatabase('demo_workers')
    dir = await mkdtemp(join(tmpdir(), 'demo-workers-'))
  }, 60_000)
  afterAll(async () => {
    await db?.drop()
    await rm(dir, { recursive: true, force: true })
  })

  test('2 worker processes answer 4 sessions × the walkthrough’s 2 messages, each once and in order; the workers close, no job is left; --inspect serves the sessions', async () => {
    const stdout = collector()
    const stderr = collector()
    const stop = new AbortController()
    const io: CliIO = { stdout, stderr, env: {}, cwd: dir, signal: stop.signal }
    const ws = join(dir, 'ws')
    const argv = [
      '--workspace',
      ws,
      '--init',
      '--store',
      db.url,
      '--workers',
      '2',
      '--sessions',
      '4',
    ]
    const running = runDemoCli([...argv, '--inspect'], io)
    // --inspect: the inspector serves the sessions after the workers closed, until Ctrl-C
    await expect
      .poll(() => stdout.text(), { timeout: 200_000, interval: 200 })
      .toContain('The inspector keeps serving')
    const url = /^inspector: (\S+)$/m.exec(stdout.text())?.[1] ?? ''
    const token = new URL(url).searchParams.get('token') ?? ''
    const listed = (await (
      await fetch(new URL('api/sessions', url), { headers: { [TOKEN_HEADER]: token } })
    ).json()) as Array<{ state: string }>
    expect(listed.map((l) => l.state)).toEqual(['ended', 'ended', 'ended', 'ended'])
    stop.abort()
    expect(await running).toBe(0)
    expect(stderr.text()).toBe('')
    const out = stdout.text()
    expect(out).toMatch(/^workers {2}worker-1 \(pid \d+\), worker-2 \(pid \d+\): ready/m)
    expect(out).toContain('queued   8 messages: 4 session(s) × 2')
    const answered = [...out.matchAll(/^(worker-[12]) answered (\S+) #([12]) /gm)].map((m) => ({
      worker: m[1] ?? '',
      session: m[2] ?? '',
      n: Number(m[3]),
    }))
    expect(answered).toHaveLength(8)
    const sessions = [...new Set(answered.map((a) => a.session))].sort()
    expect(sessions).toHaveLength(4)
    expect(new Set(answered.map((a) => `${a.session}#${a.n}`)).size).toBe(8)
    expect(out).toMatch(/^answered 8 of 8: worker-1 \d, worker-2 \d$/m)
    expect(out).toContain(
      'closed   2 worker process(es) (exit 0, 0); 0 of the 8 jobs unfinished on the queue',
    )

    // the record agrees: every job completed; each session holds its two messages in order, each
    // answered, and its job entries name the workers the demo printed
    const pool = new pg.Pool({ connectionString: db.url, max: 2 })
    try {
      const jobs = await pool.query<{ state: string; n: number }>(
        'SELECT state, count(*)::int AS n FROM pgboss.job WHERE name = $1 GROUP BY state',
        [DEMO_QUEUE],
      )
      expect(jobs.rows).toEqual([{ state: 'completed', n: 8 }])
      const store = postgresSessionStore(pool)
      for (const session of sessions) {
        const { entries } = await store.load(session)
        // split at the user's messages: each turn ends in a reply that calls no tool
        const turns: Message[][] = []
        for (const m of sessionMessages(entries)) {
          if (m.role === 'user' && m.content.some((b) => b.type === 'text')) turns.push([m])
          else turns.at(-1)?.push(m)
        }
        expect(turns.map((t) => textOf(t[0]!))).toEqual(DEMO_TURNS.map((t) => t.text))
        for (const t of turns) {
          expect(t.at(-1)?.role).toBe('assistant')
          expect(t.at(-1)?.content.some((b) => b.type === 'tool_call')).toBe(false)
        }
        const ran = entries.flatMap((e) =>
          e.type === 'custom' && e.customType === JOB_ENTRY_TYPE
            ? [(e.data as JobEntryData).workerId]
            : [],
        )
        const printed = [1, 2].map(
          (n) => answered.find((a) => a.session === session && a.n === n)?.worker,
        )
        expect(ran).toEqual(printed)
      }
    } finally {
      await pool.end()
    }
  }, 240_000)
})
