import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { demoInProcess } from './demo-in-process.js'
import { demoProcess } from './demo-process.js'

// The demo as users run it: a real child process (node + tsx on the source), real pipes, exit codes.
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

test('the same command twice on one workspace: offline first line, then resumption at work', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-process-'))
  dirs.push(dir)
  const args = ['--workspace', join(dir, 'ws'), '--init', 'What files are in this workspace?']
  const first = await demoProcess(args)
  expect(first.stderr).toBe('')
  expect(first.code).toBe(0)
  const lines = first.stdout.split('\n')
  expect(lines[0]).toMatch(
    /^contextkit demo · offline: the testkit emulator answers at http:\/\/127\.0\.0\.1:\d+/,
  )
  expect(first.stdout).toMatch(/resumption\s+0 {2}nothing to resume yet/)
  expect(first.stdout).toMatch(/✔ list_files · \d+ ms/)
  expect(first.stdout).not.toMatch(/\u001b\[/) // a pipe: no colours, no spinner redraws
  const second = await demoProcess(args)
  expect(second.code).toBe(0)
  expect(second.stdout).toMatch(
    /resumption\s+█[█▏▎▍▌▋▊▉]*\s+\d+ {2}your last words from the previous session/,
  )
  expect(second.stdout).toContain('Picking up where I stopped last time')
}, 120_000)

test('bad input exits with code 2 and one line on stderr', async () => {
  // through the process: the exit code and the one line reach the shell
  const flag = await demoProcess(['--jsonl', 'hi'])
  expect(flag).toEqual({
    code: 2,
    stdout: '',
    stderr: 'demo: unknown flag --jsonl (did you mean --json?)\n',
  })
  // the model check is the command line's logic (runDemoCli, which demo.ts wires to the
  // process): run here, without a second tsx start
  const dir = await mkdtemp(join(tmpdir(), 'demo-process-'))
  dirs.push(dir)
  const argv = ['--model', 'claude-sonet-4-6', '--workspace', join(dir, 'ws'), '--init', 'hi']
  expect(await demoInProcess(argv, dir)).toEqual({
    code: 2,
    stdout: '',
    stderr: 'demo: unknown model "claude-sonet-4-6" (did you mean claude-sonnet-4-6?)\n',
  })
}, 120_000)
