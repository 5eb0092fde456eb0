import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, expect, test } from 'vitest'

// `npx tsx examples/src/code-editor.ts …` as a user runs it: a child process.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const program = join(repo, 'examples', 'src', 'code-editor.ts')
const run = promisify(execFile)
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

async function codeEditor(args: string[]) {
  const env = { ...process.env }
  delete env.ANTHROPIC_API_KEY
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', program, ...args], {
      cwd: repo,
      env,
      timeout: 120_000,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

test('the code editor as a command: --init makes a project, the agent plans, edits both files and says so', async () => {
  const base = await mkdtemp(join(tmpdir(), 'code-editor-cli-'))
  dirs.push(base)
  const ws = join(base, 'app')
  const r = await codeEditor([
    '--workspace',
    ws,
    '--init',
    '--file',
    'src/App.jsx',
    'Add a priority field to tasks and show it on the task card',
  ])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  const lines = r.stdout.trim().split('\n')
  expect(lines[0]).toBe(`created a demo project in ${ws}`)
  expect(lines).toContain('files changed: api/models.py, src/App.jsx')
  expect(lines.at(-1)).toMatch(/^\d+ model calls · stopped end_turn$/)
  expect(await readFile(join(ws, 'api', 'models.py'), 'utf8')).toContain('priority')
  expect(await readFile(join(ws, 'src', 'App.jsx'), 'utf8')).toContain('priority')
}, 120_000)

test('bad input: no workspace, a missing one without --init, a file not in the project', async () => {
  const base = await mkdtemp(join(tmpdir(), 'code-editor-cli-'))
  dirs.push(base)
  const none = await codeEditor(['Add a field'])
  expect(none.code).toBe(2)
  expect(none.stderr).toMatch(/^usage: code-editor\.ts --workspace DIR/)
  const missing = await codeEditor(['--workspace', join(base, 'nope'), 'Add a field'])
  expect(missing).toEqual({
    code: 2,
    stdout: '',
    stderr: `code-editor: --workspace ${join(base, 'nope')}: no such directory; pass --init to create a demo project there\n`,
  })
  expect(existsSync(join(base, 'nope'))).toBe(false)
  const file = await codeEditor([
    '--workspace',
    join(base, 'app'),
    '--init',
    '--file',
    'src/Nope.jsx',
    'Add a field',
  ])
  expect(file.code).toBe(2)
  expect(file.stderr).toBe(
    `code-editor: --file src/Nope.jsx: no such file in ${join(base, 'app')}\n`,
  )
}, 120_000)
