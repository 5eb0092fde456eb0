import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { runInspectCli } from './inspect.js'
import { offlineScenario } from './offline-scenario.js'
import { type CliIO, runDemoCli } from './run-cli.js'
import { newSessionId } from './run-turn.js'
import { ANSI_COLOR, collector } from './test-support.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'demo-cli-'))
  dirs.push(dir)
  return dir
}

async function cli(
  argv: string[],
  options: { env?: Record<string, string>; tty?: boolean; cwd?: string } = {},
) {
  const stdout = collector(options.tty ?? false)
  const stderr = collector()
  const io: CliIO = { stdout, stderr, env: options.env ?? {}, cwd: options.cwd ?? tmpdir() }
  const code = await runDemoCli(argv, io)
  return { code, out: stdout.text(), lines: stdout.lines(), err: stderr.text() }
}

test('a message, offline: the headline first, the chart before the reply, tool lines, where things went', async () => {
  const ws = join(await tempDir(), 'ws')
  const first = await cli([
    '--workspace',
    ws,
    '--init',
    'What',
    'files',
    'are',
    'in',
    'this',
    'workspace?',
  ])
  expect(first.err).toBe('')
  expect(first.code).toBe(0)
  expect(first.lines[0]).toMatch(
    /^contextkit demo · offline: the testkit emulator answers at http:\/\/127\.0\.0\.1:\d+/,
  )
  expect(first.lines[1]).toContain(`workspace ${ws} (created from the demo template)`)
  const at = (text: string) => first.out.indexOf(text)
  expect(at('context budget · claude-haiku-4-5')).toBeGreaterThan(0)
  expect(at('context budget')).toBeLessThan(at("I'll analyze your request step by step."))
  expect(first.out).toMatch(/ {2}✔ list_files · \d+ ms · \d+ chars/)
  expect(first.out).toMatch(/ {2}✔ read_file src\/report\.ts · \d+ ms · 558 chars/)
  // the demo's label before the reply's text, the tools' lines before the answer
  expect(first.out).toMatch(/^\(offline emulator\) I'll analyze your request step by step\./m)
  expect(at('✔ list_files')).toBeLessThan(at('The workspace has'))
  const session = /^session {2}(\S+)/m.exec(first.out)?.[1] ?? ''
  expect(existsSync(session)).toBe(true)
  expect(readFileSync(session, 'utf8')).toContain('What files are in this workspace?')
  expect(first.out).toMatch(/^trace {4}\S+\.jsonl$/m)
  expect(first.out).toMatch(
    /^usage {4}3 model call\(s\) · [\d,]+ input tokens \(0 from the cache, 0 written to it; hit rate 0 %\) · \d+ output tokens$/m,
  )
  expect(first.out).not.toMatch(ANSI_COLOR)
  // the same command again: a new session that wakes up with the first one's last words
  const second = await cli(['--workspace', ws, '--init', 'What files are in this workspace?'])
  expect(second.code).toBe(0)
  expect(second.lines[1]).not.toContain('created from the demo template')
  expect(second.out).toMatch(
    /resumption\s+█[█▏▎▍▌▋▊▉]*\s+\d+ {2}your last words from the previous session/,
  )
  expect(second.out).toContain('Picking up where I stopped last time')
})

test('--json: only JSON lines — the start, the budget before the first delta, agent events, the end', async () => {
  const ws = join(await tempDir(), 'ws')
  const { code, lines } = await cli([
    '--json',
    '--workspace',
    ws,
    '--init',
    '--session',
    'js-1',
    'What does src/report.ts do?',
  ])
  expect(code).toBe(0)
  const events = lines
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown })
  const types = events.map((e) => e.type)
  expect(types[0]).toBe('demo-start')
  expect(events[0]).toMatchObject({
    mode: 'offline',
    model: 'claude-haiku-4-5',
    workspace: ws,
    created: true,
  })
  expect(types.indexOf('budget')).toBeLessThan(types.indexOf('text-delta'))
  for (const t of ['run-start', 'step-start', 'usage', 'step-end', 'run-end'])
    expect(types).toContain(t)
  expect(types).not.toContain('tool-call') // the file was named, so it was preloaded
  const end = events.at(-1)!
  expect(end).toMatchObject({
    type: 'demo-turn-end',
    sessionId: 'js-1',
    stopReason: 'end_turn',
    turns: 1,
  })
  expect(existsSync(String(end.session))).toBe(true)
  const budget = events.find((e) => e.type === 'budget') as unknown as {
    rows: Array<{ key: string; detail: string }>
  }
  expect(budget.rows.find((r) => r.key === 'preloaded')?.detail).toBe('src/report.ts')
})

test('colours only on a TTY, and never with NO_COLOR', async () => {
  const ws = join(await tempDir(), 'ws')
  const ask = ['--workspace', ws, '--init', 'Where were we?']
  // CI set: no spinner redraws in these runs; colours are decided on the TTY alone
  expect((await cli(ask, { tty: true, env: { CI: '1' } })).out).toMatch(ANSI_COLOR)
  expect((await cli(ask, { tty: true, env: { CI: '1', NO_COLOR: '1' } })).out).not.toMatch(
    ANSI_COLOR,
  )
  expect((await cli(ask, { tty: false, env: { CI: '1' } })).out).not.toMatch(ANSI_COLOR)
  expect((await cli(['--help'])).out).toContain('Usage: pnpm demo [options] ["message"]')
})

test('bad input: one line on stderr, nothing on stdout, exit code 2', async () => {
  const dir = await tempDir()
  await writeFile(join(dir, 'file.txt'), 'x')
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const p = (server.address() as { port: number }).port
      server.close(() => resolve(p))
    })
  })
  const ws = join(dir, 'ws')
  const cases: Array<[string[], string]> = [
    [['--jsn', 'hi'], 'demo: unknown flag --jsn (did you mean --json?)'],
    [
      ['--workspace', join(dir, 'file.txt'), 'hi'],
      `demo: cannot use --workspace ${join(dir, 'file.txt')}: not a directory`,
    ],
    [
      ['--workspace', ws, '--init', '--model', 'claude-haiku-4.5', 'hi'],
      'demo: unknown model "claude-haiku-4.5" (did you mean claude-haiku-4-5?)',
    ],
    [
      ['--workspace', ws, '--init', '--base-url', `http://127.0.0.1:${port}/v1`, 'hi'],
      `demo: cannot reach --base-url http://127.0.0.1:${port}/v1 (ECONNREFUSED)`,
    ],
    [
      ['--workspace', ws, '--init', '--store', 'mysql://x', 'hi'],
      'demo: unknown --store "mysql://x" (use files, postgres:<connection url> or pglite:<dir>)',
    ],
    [
      ['--workspace', ws, '--init', '--context-file', 'nope.csv', 'hi'],
      `demo: --context-file nope.csv: no such file in ${ws}`,
    ],
    [['--session', '../x', 'hi'], 'demo: --session "../x": use 1–200 of A-Z a-z 0-9 . _ -'],
    [
      ['--workspace', ws, '--init', '--store', `postgres://u:pw@127.0.0.1:${port}/db`, 'hi'],
      `demo: cannot open --store postgres:postgres://u:***@127.0.0.1:${port}/db: migrate failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    ],
  ]
  for (const [argv, message] of cases) {
    const r = await cli(argv)
    expect({ argv, code: r.code, err: r.err, out: r.out }).toEqual({
      argv,
      code: 2,
      err: `${message}\n`,
      out: '',
    })
  }
})

test('--store pglite:<dir> (the walkthrough), then postgres:<url> on the same data: sessions and resumption in Postgres', async () => {
  const dir = await tempDir()
  const ws = join(dir, 'ws')
  const r = await cli(['--workspace', ws, '--init', '--store', 'pglite:db'], { cwd: dir })
  expect(r.err).toBe('')
  expect(r.code).toBe(0)
  expect(r.lines[1]).toContain('store pglite:db (migrated; sessions in table contextkit_sessions)')
  const sessions = r.out.split('─'.repeat(60))
  expect(sessions).toHaveLength(2)
  expect(sessions[0]).toContain('you (session session-1) › What does src/parse-orders.ts do')
  expect(sessions[0]).toContain('session  pglite:db → contextkit_sessions, session "session-1"')
  expect(sessions[0]).toContain('the turn, step by step (from the trace):')
  expect(sessions[0]).toMatch(/resumption\s+0 {2}nothing to resume yet/)
  // the second session wakes up with the first one's last words, read from Postgres
  expect(sessions[1]).toMatch(
    /resumption\s+█[█▏▎▍▌▋▊▉]*\s+\d+ {2}your last words from the previous session/,
  )
  expect(sessions[1]).toContain('Picking up where I stopped. My last words were:')
  expect(sessions[1]).toContain('session  pglite:db → contextkit_sessions, session "session-2"')
  // nothing went to the file stores
  expect(existsSync(join(ws, '.contextkit', 'sessions'))).toBe(false)
  expect(existsSync(join(ws, '.contextkit', 'self-state.json'))).toBe(false)
  expect(existsSync(join(dir, 'db', 'PG_VERSION'))).toBe(true)
  // `pnpm inspect --store pglite:db` shows each step's composition from the trace table beside
  // the sessions, not from the workspace's JSONL copy of the trace
  await rm(join(ws, '.contextkit', 'traces'), { recursive: true, force: true })
  const steps = await inspectedSteps(['--workspace', ws, '--store', 'pglite:db'], dir, 'session-1')
  expect(steps.total).toBeGreaterThan(0)
  expect(steps.steps.every((s) => (s.composition?.window ?? 0) > 0)).toBe(true)

  // the same database behind the Postgres wire protocol (pglite-socket): `--store postgres:<url>`
  // through the real `pg` driver sees the walkthrough's sessions and resumes from its state
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  const db = await PGlite.create(join(dir, 'db'))
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 })
  await server.start()
  try {
    const conn = server.getServerConn()
    const url = `postgresql://postgres:secret@127.0.0.1:${conn.slice(conn.lastIndexOf(':') + 1)}/postgres?sslmode=disable`
    const next = await cli([
      '--workspace',
      ws,
      '--init',
      '--store',
      `postgres:${url}`,
      '--session',
      'pg-3',
      'Where were we?',
    ])
    expect(next.err).toBe('')
    expect(next.code).toBe(0)
    expect(next.lines[1]).toContain('store postgres:postgresql://postgres:***@127.0.0.1:')
    expect(next.out).toMatch(
      /resumption\s+█[█▏▎▍▌▋▊▉]*\s+\d+ {2}your last words from the previous session/,
    )
    const rows = await db.query<{ session_id: string }>(
      'SELECT DISTINCT session_id FROM contextkit_sessions ORDER BY session_id',
    )
    expect(rows.rows.map((r) => r.session_id)).toEqual(['pg-3', 'session-1', 'session-2'])
    // each run's trace went to the trace table beside the sessions
    const traced = await db.query<{ session_id: string }>(
      'SELECT DISTINCT session_id FROM contextkit_traces ORDER BY session_id',
    )
    expect(traced.rows.map((r) => r.session_id)).toEqual(['pg-3', 'session-1', 'session-2'])
  } finally {
    await server.stop()
    await db.close()
  }
  // a hang guard, not a speed check: the walkthrough on a new PGlite directory alone costs 19 s of
  // CPU (15 s user + 4 s system measured: PGlite compiles its WebAssembly and runs initdb), then
  // come an inspector, a second PGlite and a third run; on 2 cores shared with other test files
  // and busy loops the whole took 96 s of wall time once
}, 240_000)

test('--base-url: a local OpenAI-compatible server (testkit’s /v1/completions) through the completions provider', async () => {
  const { startAnthropicEmulator } = await import('@contextkit/testkit')
  const server = await startAnthropicEmulator({ script: offlineScenario })
  try {
    const ws = join(await tempDir(), 'ws')
    const r = await cli([
      '--workspace',
      ws,
      '--init',
      '--base-url',
      `${server.url}/v1`,
      '--model',
      'qwen2.5-7b-instruct',
      'What files are in this workspace?',
    ])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.lines[0]).toBe(
      `contextkit demo · qwen2.5-7b-instruct on the OpenAI-compatible server at ${server.url}/v1`,
    )
    const completions = server.requests.filter((q) => q.path === '/v1/completions')
    expect(completions).toHaveLength(3)
    expect((completions[0]!.body as { prompt: string }).prompt).toContain(
      '<|im_start|>user\nWhat files are in this workspace?',
    )
    expect(r.out).toMatch(/ {2}✔ list_files · \d+ ms/)
    expect(r.out).toMatch(/ {2}✔ read_file src\/report\.ts · \d+ ms/)
    expect(r.out).toContain('The workspace has 7 files')
  } finally {
    await server.close()
  }
})

test('--provider openai: the same server through /v1/chat/completions with native tools', async () => {
  const { startAnthropicEmulator } = await import('@contextkit/testkit')
  const server = await startAnthropicEmulator({ script: offlineScenario })
  try {
    const ws = join(await tempDir(), 'ws')
    const r = await cli([
      '--workspace',
      ws,
      '--init',
      '--provider',
      'openai',
      '--base-url',
      `${server.url}/v1`,
      '--model',
      'claude-haiku-4-5',
      'What files are in this workspace?',
    ])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.lines[0]).toBe(
      `contextkit demo · claude-haiku-4-5 on the OpenAI-compatible server at ${server.url}/v1 (chat completions)`,
    )
    const chats = server.requests.filter((q) => q.path === '/v1/chat/completions')
    expect(chats.length).toBeGreaterThanOrEqual(2)
    const first = chats[0]!.body as { tools?: { function: { name: string } }[]; stream: boolean }
    expect(first.stream).toBe(true)
    expect(first.tools?.map((t) => t.function.name)).toEqual([
      'list_files',
      'read_file',
      'write_file',
    ])
    expect(server.requests.some((q) => q.path === '/v1/completions')).toBe(false)
    expect(r.out).toMatch(/ {2}✔ list_files · \d+ ms/)
  } finally {
    await server.close()
  }
})

test('--provider: a wrong kind or no --base-url is one line and exit code 2', async () => {
  const typo = await cli(['--provider', 'opena', '--base-url', 'http://127.0.0.1:9/v1', 'hi'])
  expect(typo.code).toBe(2)
  expect(typo.err).toContain(
    '--provider must be completions or openai, got "opena" (did you mean openai?)',
  )
  const alone = await cli(['--provider', 'openai', 'hi'])
  expect(alone.code).toBe(2)
  expect(alone.err).toContain('--provider openai needs --base-url')
})

test('new session ids are valid and sortable', () => {
  expect(newSessionId(new Date('2026-03-01T09:00:00.123Z'))).toBe('chat-2026-03-01T09-00-00-123')
})

/** Serve `pnpm inspect` with `argv`, read one session's steps through its API, then stop it. */
async function inspectedSteps(argv: string[], cwd: string, sessionId: string) {
  const stdout = collector()
  const stop = new AbortController()
  const running = runInspectCli(argv, {
    stdout,
    stderr: collector(),
    cwd,
    signal: stop.signal,
    resumer: async () => ({ resume: async () => {}, close: async () => {} }),
  })
  try {
    await expect.poll(() => stdout.text(), { timeout: 30_000 }).toMatch(/^inspector: /)
    const url = new URL(stdout.text().trim().slice('inspector: '.length))
    const headers = { 'x-inspector-token': url.searchParams.get('token') ?? '' }
    const response = await fetch(new URL(`api/sessions/${sessionId}/steps`, url), { headers })
    return (await response.json()) as {
      total: number
      steps: Array<{ composition: { window: number } | null }>
    }
  } finally {
    stop.abort()
    expect(await running).toBe(0)
  }
}

test('the walkthrough keeps its workspace: the printed session and trace exist, and "continue it" continues session-1', async () => {
  const r = await cli([])
  expect(r.err).toBe('')
  expect(r.code).toBe(0)
  const kept = /The walkthrough's workspace is kept at (\S+); remove it with: rm -rf (\S+)$/m.exec(
    r.out,
  )
  expect(kept).not.toBeNull()
  const ws = kept![1]!
  dirs.push(ws)
  expect(kept![2]).toBe(ws)
  for (const m of r.out.matchAll(/^(?:session|trace) {2,}(\S+\.jsonl)/gm)) {
    expect(existsSync(m[1]!), m[1]).toBe(true)
  }
  const again =
    /\(continue it: pnpm demo (--workspace \S+ --session session-1) "your message"\)/.exec(r.out)
  expect(again).not.toBeNull()
  const next = await cli([...again![1]!.split(' '), 'What did you find?'])
  expect(next.err).toBe('')
  expect(next.code).toBe(0)
  expect(next.out).toContain('you (session session-1) › What did you find?')
  // the session's history came along: not a new session
  expect(next.out).not.toMatch(/history\s+0 {2}new session/)
}, 90_000)
