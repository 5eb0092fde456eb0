import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { parseDemoArgs } from './args.js'
import { demoProcess } from './demo-process.js'
import { type CliIO, runDemoCli } from './run-cli.js'
import { demoCommand } from './run-turn.js'
import { collector } from './test-support.js'

// The demo's write_file waits for a person: the run pauses, and --approve / --deny finish it later.
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'demo-approval-'))
  dirs.push(dir)
  return join(dir, 'ws')
}

async function cli(argv: string[]) {
  const stdout = collector()
  const stderr = collector()
  const io: CliIO = { stdout, stderr, env: {}, cwd: tmpdir() }
  const code = await runDemoCli(argv, io)
  return { code, out: stdout.text(), err: stderr.text() }
}

const ASK = 'Write a summary of the workspace to notes.md'

/** Run the demo until it pauses on write_file; the session id and the call id it printed. */
async function paused(ws: string) {
  const run = await cli(['--workspace', ws, '--init', ASK])
  const call =
    /^ {2}write_file notes\.md · (?:new file|replaces the file on disk), ([\d,]+) characters \(call (\S+)\)$/m.exec(
      run.out,
    )
  const session = /--session (\S+) --approve/.exec(run.out)?.[1] ?? ''
  return { run, callId: call?.[2] ?? '', chars: Number(call?.[1]?.replace(',', '')), session }
}

function sessionText(ws: string, session: string): string {
  return readFileSync(join(ws, '.contextkit', 'sessions', `${session}.jsonl`), 'utf8')
}

test('a write pauses the run: exit 0, no file, the call and the exact commands printed', async () => {
  const ws = await workspace()
  const { run, callId, chars, session } = await paused(ws)
  expect(run.err).toBe('')
  expect(run.code).toBe(0)
  expect(run.out).toMatch(/^stopped {2}awaiting_approval after/m)
  expect(callId).toMatch(/^toolu_\w+$/)
  expect(chars).toBeGreaterThan(50)
  expect(run.out).toContain(
    `    approve: pnpm demo --workspace ${ws} --session ${session} --approve ${callId}\n`,
  )
  expect(run.out).toContain(
    `    deny:    pnpm demo --workspace ${ws} --session ${session} --deny ${callId} "why"\n`,
  )
  expect(run.out).not.toContain('Run it again')
  expect(existsSync(join(ws, 'notes.md'))).toBe(false)
}, 60_000)

test('--approve runs the waiting write: the file holds the summary, the run ends end_turn', async () => {
  const ws = await workspace()
  const { callId, chars, session } = await paused(ws)
  const done = await cli(['--workspace', ws, '--session', session, '--approve', callId])
  expect(done.err).toBe('')
  expect(done.code).toBe(0)
  expect(done.out).toContain(`you (session ${session}) › approve ${callId}`)
  expect(done.out).toMatch(/^stopped {2}end_turn after/m)
  // the demo's label, the prefill the reply continues, then the reply
  expect(done.out).toMatch(
    /^\(offline emulator\) I'll analyze your request step by step\. Done\. Wrote notes\.md \(\d+ bytes\)\.$/m,
  )
  const notes = readFileSync(join(ws, 'notes.md'), 'utf8')
  expect(notes.length).toBe(chars)
  expect(notes).toMatch(/^# Workspace summary\n\n7 files:\n\n- AGENTS\.md \(\d+ bytes\)/)
  expect(notes).toContain('- src/report.ts (558 bytes)')
  // approving again: nothing waits any more, the call is not run twice
  const again = await cli(['--workspace', ws, '--session', session, '--approve', callId])
  expect(again.out).toContain('agent_loop_approval_unmatched')
  expect(again.out).not.toContain('waiting for your approval')
}, 60_000)

test('--deny with a reason: no file, and the model is told the reason', async () => {
  const ws = await workspace()
  const { callId, session } = await paused(ws)
  const done = await cli(['--workspace', ws, '--session', session, '--deny', callId, 'not now'])
  expect(done.code).toBe(0)
  expect(done.out).toContain(`you (session ${session}) › deny ${callId} ("not now")`)
  expect(done.out).toMatch(
    /^\(offline emulator\) .*I did not write notes\.md: the write was not approved \(reason: "not now"\)\. Nothing was changed\.$/m,
  )
  expect(done.out).toMatch(/^stopped {2}end_turn after/m)
  expect(existsSync(join(ws, 'notes.md'))).toBe(false)
  // the tool result the model read is in the saved session
  expect(sessionText(ws, session)).toContain(
    'The call to tool \\"write_file\\" was not approved. Reason: not now',
  )
}, 60_000)

test('a wrong call id: the warning is shown and the call still waits, with its commands', async () => {
  const ws = await workspace()
  const { callId, session } = await paused(ws)
  const wrong = await cli(['--workspace', ws, '--session', session, '--approve', 'toolu_nope'])
  expect(wrong.code).toBe(0)
  expect(wrong.out).toMatch(/^! agent_loop_approval_unmatched: .*"toolu_nope"/m)
  expect(wrong.out).toMatch(/^stopped {2}awaiting_approval after/m)
  expect(wrong.out).toContain(`--approve ${callId}\n`)
  expect(existsSync(join(ws, 'notes.md'))).toBe(false)
}, 60_000)

test('--json: the pause is one demo-awaiting-approval event with the commands', async () => {
  const ws = await workspace()
  const run = await cli(['--json', '--workspace', ws, '--init', ASK])
  expect(run.code).toBe(0)
  const events = run.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown })
  const pause = events.find((e) => e.type === 'demo-awaiting-approval') as unknown as {
    sessionId: string
    pending: Array<{
      toolCallId: string
      tool: string
      input: { path: string }
      commands: { approve: string }
    }>
  }
  expect(pause.pending).toHaveLength(1)
  const [call] = pause.pending
  expect(call?.tool).toBe('write_file')
  expect(call?.input.path).toBe('notes.md')
  expect(call?.commands.approve).toBe(
    `pnpm demo --workspace ${ws} --session ${pause.sessionId} --approve ${call?.toolCallId}`,
  )
  expect(events.at(-1)).toMatchObject({ type: 'demo-turn-end', stopReason: 'awaiting_approval' })
}, 60_000)

test('--approve / --deny without --session, or with a new message: exit 2, one line', async () => {
  const missing = await cli(['--approve', 'toolu_1'])
  expect(missing).toEqual({
    code: 2,
    out: '',
    err: 'demo: --approve needs --session ID (the session whose run waits; the paused run printed it)\n',
  })
  const both = await cli(['--session', 's', '--approve', 'a', '--deny', 'b'])
  expect(both.err).toBe('demo: give either --approve or --deny, not both\n')
  const message = await cli(['--session', 's', '--approve', 'a', 'hello'])
  expect(message.code).toBe(2)
  expect(message.err).toBe(
    'demo: --approve finishes a paused run and takes no new message (only --deny takes a reason)\n',
  )
  expect(parseDemoArgs(['--session', 's', '--deny', 'c1', 'not', 'now'])).toMatchObject({
    decision: { toolCallId: 'c1', approve: false, reason: 'not now' },
  })
  expect(parseDemoArgs(['--session', 's', '--deny', 'c1']).decision).toEqual({
    toolCallId: 'c1',
    approve: false,
  })
})

/**
 * The arguments of the `approve:` command a paused run printed, after the launcher it names for
 * `env` (`pnpm demo`, or `npx --yes pnpm@… demo` when pnpm itself ran from npx's cache).
 */
function printedApproval(stdout: string, env: Readonly<Record<string, string | undefined>>) {
  const printed = /^ {4}approve: (.+)$/m.exec(stdout)?.[1] ?? ''
  const launcher = demoCommand(env)
  expect(printed.startsWith(`${launcher} `), `${printed} starts with ${launcher}`).toBe(true)
  return printed.slice(launcher.length + 1).split(' ')
}

test('the approve command a run printed, typed in a shell: a real process approves, the file appears', async () => {
  const ws = await workspace()
  // as `npx --yes pnpm@… test` runs the suite where pnpm is not installed: the demo's environment
  // holds a pnpm path in npx's cache, and it prints the npx command (the one the user can run).
  // The pause is the command line's logic (run here, as in the tests above); the command it
  // printed runs as a child process (node + tsx), reading the session this process saved.
  const npx = { npm_execpath: '/root/.npm/_npx/3f1a/node_modules/pnpm/bin/pnpm.cjs' }
  const stdout = collector()
  const io: CliIO = { stdout, stderr: collector(), env: npx, cwd: tmpdir() }
  expect(await runDemoCli(['--workspace', ws, '--init', ASK], io)).toBe(0)
  expect(existsSync(join(ws, 'notes.md'))).toBe(false)
  const command = printedApproval(stdout.text(), npx)
  expect(command).toContain('--approve')
  const second = await demoProcess(command)
  expect(second.stderr).toBe('')
  expect(second.code).toBe(0)
  expect(second.stdout).toMatch(/^stopped {2}end_turn after/m)
  expect(readFileSync(join(ws, 'notes.md'), 'utf8')).toMatch(/^# Workspace summary/)
}, 120_000)

/** The content the paused write_file call carries, read from the session log. */
function pendingContent(ws: string, session: string): string {
  const call = sessionText(ws, session)
    .split('\n')
    .filter((l) => l.includes('"write_file"'))
    .map((l) => /"content":("(?:[^"\\]|\\.)*")/.exec(l)?.[1])
    .find((c) => c !== undefined)
  return JSON.parse(call ?? '""') as string
}

test('before asking, the pause shows what would be written: a new file’s first lines', async () => {
  const ws = await workspace()
  const { run, session } = await paused(ws)
  const content = pendingContent(ws, session)
  expect(content.length).toBeGreaterThan(0)
  const firstLines = content.split('\n').slice(0, 3)
  expect(run.out).toContain(firstLines.map((l) => `    + ${l}`).join('\n'))
  expect(run.out).toMatch(/write_file notes\.md · new file, /)
}, 90_000)

test('a write over a file on disk shows a diff against it', async () => {
  const ws = await workspace()
  await mkdir(ws, { recursive: true })
  await cli(['--workspace', ws, '--init', 'hi']) // the demo template, then notes.md of our own
  await writeFile(join(ws, 'notes.md'), 'Old notes.\nKeep this line?\n')
  const { run } = await paused(ws)
  expect(run.out).toMatch(/write_file notes\.md · replaces the file on disk, /)
  expect(run.out).toMatch(/^ {4}@@ -1,2 \+1,\d+ @@$/m)
  expect(run.out).toContain('    - Old notes.\n    - Keep this line?\n')
}, 90_000)
