import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { DemoUsageError } from './errors.js'
import { parseInspectArgs, runInspectCli } from './inspect.js'
import { runDemoCli } from './run-cli.js'
import { collector } from './test-support.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

test('pnpm inspect: --workspace is required, --port is a port, nothing else is taken', () => {
  expect(parseInspectArgs(['--workspace', 'w', '--port', '0'])).toEqual({
    workspace: 'w',
    port: 0,
    help: false,
  })
  expect(() => parseInspectArgs([])).toThrow(DemoUsageError)
  expect(() => parseInspectArgs(['--workspace', 'w', '--port', 'x'])).toThrow(/--port/)
  expect(() => parseInspectArgs(['--workspace', 'w', '--prot', '1'])).toThrow(DemoUsageError)
})

test('pnpm inspect serves the workspace sessions, prints its one line, and exits 0 when stopped', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'inspect-cli-'))
  dirs.push(dir)
  const ws = join(dir, 'ws')
  const demo = collector()
  const io = { stdout: demo, stderr: collector(), env: {}, cwd: dir }
  expect(await runDemoCli(['--workspace', ws, '--init', '--session', 'first', 'Hi'], io)).toBe(0)

  const stdout = collector()
  const stderr = collector()
  const stop = new AbortController()
  let closed = 0
  const running = runInspectCli(['--workspace', ws], {
    stdout,
    stderr,
    cwd: dir,
    signal: stop.signal,
    resumer: async () => ({ resume: async () => {}, close: async () => void closed++ }),
  })
  await expect
    .poll(() => stdout.text())
    .toMatch(/^inspector: http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+\n$/)
  const url = new URL(stdout.text().trim().slice('inspector: '.length))
  const token = url.searchParams.get('token') ?? ''
  const list = await fetch(new URL('api/sessions', url), {
    headers: { 'x-inspector-token': token },
  })
  expect(((await list.json()) as Array<{ id: string }>).map((s) => s.id)).toEqual(['first'])
  stop.abort()
  expect(await running).toBe(0)
  expect(closed).toBe(1)
  expect(stderr.text()).toBe('')
  expect(
    await runInspectCli(['--workspace', join(dir, 'missing')], {
      stdout,
      stderr,
      cwd: dir,
      resumer: async () => ({ resume: async () => {}, close: async () => {} }),
    }),
  ).toBe(2)
})
