import { execFile, spawn } from 'node:child_process'
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

test('bad input: no instruction, a missing root without --init, a file not in the project', async () => {
  const base = await mkdtemp(join(tmpdir(), 'code-editor-cli-'))
  dirs.push(base)
  const none = await codeEditor(['--workspace', base])
  expect(none.code).toBe(2)
  expect(none.stderr).toMatch(/^usage: code-editor\.ts \[--workspace DIR\]/)
  // no --workspace and no VCI_OUTPUT_DIR: the seed's /output (absent here)
  const output = await codeEditor(['Add a field'])
  expect(output).toEqual({
    code: 2,
    stdout: '',
    stderr:
      'code-editor: VCI_OUTPUT_DIR /output: no such directory; pass --init to create a demo project there, or --workspace DIR\n',
  })
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

/** The command with `stdin` piped in (then closed) and `env` added. */
function codeEditorWith(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
  delete env.ANTHROPIC_API_KEY
  if (!options.env?.VCI_OUTPUT_DIR) delete env.VCI_OUTPUT_DIR
  const child = spawn(process.execPath, ['--import', 'tsx', program, ...args], { cwd: repo, env })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  child.stdin.end(options.stdin ?? '')
  return new Promise((done, fail) => {
    child.on('error', fail)
    child.on('close', (code) => done({ code, stdout, stderr }))
  })
}

test('the agent asks, the answer comes on stdin, and the run goes on to the edit', async () => {
  const base = await mkdtemp(join(tmpdir(), 'code-editor-cli-'))
  dirs.push(base)
  const ws = join(base, 'app')
  const r = await codeEditorWith(
    [
      '--workspace',
      ws,
      '--init',
      '--file',
      'src/App.jsx',
      '--file',
      'api/routes.py',
      'Add a due field to it',
    ],
    { stdin: 'The card in src/App.jsx\n' },
  )
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  const lines = r.stdout.trim().split('\n')
  expect(lines).toContain(
    'the agent asks: Which of the 2 selected elements should change? ("Add a due field to it" could mean any of them.)',
  )
  expect(lines).toContain('answer: The card in src/App.jsx')
  expect(lines).toContain('files changed: src/App.jsx')
  expect(lines.at(-1)).toBe('4 model calls · stopped end_turn')
  expect(await readFile(join(ws, 'src', 'App.jsx'), 'utf8')).toContain('{task.due}')
}, 120_000)

test('no answer (stdin closed): exit 1 with the question and how to answer it', async () => {
  const base = await mkdtemp(join(tmpdir(), 'code-editor-cli-'))
  dirs.push(base)
  const r = await codeEditorWith([
    '--workspace',
    join(base, 'app'),
    '--init',
    '--file',
    'src/App.jsx',
    '--file',
    'api/routes.py',
    'Make it bigger',
  ])
  expect(r.code).toBe(1)
  expect(r.stderr).toBe(
    'code-editor: the agent asks: Which of the 2 selected elements should change? (answer with --answer TEXT, or on stdin)\n',
  )
}, 120_000)

test('VCI_OUTPUT_DIR is the root when --workspace is not given', async () => {
  const base = await mkdtemp(join(tmpdir(), 'code-editor-cli-'))
  dirs.push(base)
  const out = join(base, 'output')
  const r = await codeEditorWith(
    ['--init', 'Add a priority field to tasks and show it on the task card'],
    {
      env: { VCI_OUTPUT_DIR: out },
    },
  )
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  expect(r.stdout.split('\n')[0]).toBe(`created a demo project in ${out}`)
  expect(await readFile(join(out, 'api', 'models.py'), 'utf8')).toContain('priority')
}, 120_000)

test("the README's code-editor samples are this command's output", async () => {
  const readme = await readFile(join(repo, 'examples', 'README.md'), 'utf8')
  const samples = [
    ...readme.matchAll(
      /<!-- code-editor-sample -->\n```sh\n(.+)\n```\n\n```text\n([\s\S]*?)\n```/g,
    ),
  ]
  expect(samples.length).toBe(2)
  const port = (text: string) => text.replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
  for (const [, command, output] of samples) {
    const parsed = /^(?:echo "([^"]*)" \| )?npx tsx examples\/src\/code-editor\.ts (.*)$/.exec(
      command!,
    )
    expect(parsed).not.toBeNull()
    const base = await mkdtemp(join(tmpdir(), 'code-editor-readme-'))
    dirs.push(base)
    const args = [...parsed![2]!.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!)
    const at = args.indexOf('--workspace') + 1
    args[at] = join(base, args[at]!)
    const r = await codeEditorWith(
      args,
      parsed![1] === undefined ? {} : { stdin: `${parsed![1]}\n` },
    )
    expect(r.stderr).toBe('')
    expect(port(r.stdout.trim().replaceAll(base, '/…'))).toBe(port(output!))
  }
}, 240_000)
