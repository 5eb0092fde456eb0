import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { main } from './code-editor.js'
import { lineAsker, runCodeEditorCli } from './code-editor-cli.js'

// `npx tsx examples/src/code-editor.ts …` as a user runs it: the README's two commands, each run
// once as a child process (node + tsx), whose output and files several tests read. The other
// checks need only the command line's logic: runCodeEditorCli (which code-editor.ts wires to the
// process) runs here, without a tsx start (about 4 CPU-seconds each on a loaded machine).
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const program = join(repo, 'examples', 'src', 'code-editor.ts')
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'code-editor-cli-'))
  dirs.push(dir)
  return dir
}

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** The command as a child process, with `stdin` piped in (then closed) and `env` added. */
function codeEditorProcess(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<Run> {
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

/**
 * The command line in this process, as code-editor.ts runs it: lines to stdout / stderr, answers
 * read by lineAsker from `stdin` (a stream that then ends), `env` as the whole environment.
 */
async function codeEditorCli(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  const out: string[] = []
  const err: string[] = []
  const input = Readable.from(options.stdin === undefined ? [] : [options.stdin])
  const code = await runCodeEditorCli(
    args,
    {
      log: (line) => out.push(`${line}\n`),
      error: (line) => err.push(`${line}\n`),
      env: options.env ?? {},
      cwd: repo,
      ask: lineAsker(input, process.stdout),
    },
    main,
  )
  return { code, stdout: out.join(''), stderr: err.join('') }
}

/** One of the README's samples: its command, the output it shows, and that command's real run. */
interface Sample {
  command: string
  output: string
  base: string
  workspace: string
  run: Run
}

/** Run each README sample's command as a child process, as the user would type it. */
async function runSamples(): Promise<Sample[]> {
  const readme = await readFile(join(repo, 'examples', 'README.md'), 'utf8')
  const found = [
    ...readme.matchAll(
      /<!-- code-editor-sample -->\n```sh\n(.+)\n```\n\n```text\n([\s\S]*?)\n```/g,
    ),
  ]
  // one after the other: two tsx starts at once only compete for the same cores
  const samples: Sample[] = []
  for (const [, command, output] of found) {
    const parsed = /^(?:echo "([^"]*)" \| )?npx tsx examples\/src\/code-editor\.ts (.*)$/.exec(
      command!,
    )
    if (parsed === null) throw new Error(`not a code-editor command: ${command}`)
    const base = await mkdtemp(join(tmpdir(), 'code-editor-readme-'))
    dirs.push(base)
    const args = [...parsed[2]!.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!)
    const at = args.indexOf('--workspace') + 1
    args[at] = join(base, args[at]!)
    const run = await codeEditorProcess(
      args,
      parsed[1] === undefined ? {} : { stdin: `${parsed[1]}\n` },
    )
    samples.push({ command: command!, output: output!, base, workspace: args[at]!, run })
  }
  return samples
}

describe('the README commands, run as a user runs them', () => {
  let samples: Sample[]
  beforeAll(async () => {
    samples = await runSamples()
  }, 240_000)

  test("the README's code-editor samples are this command's output", () => {
    expect(samples.length).toBe(2)
    const port = (text: string) =>
      text.replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
    for (const { base, output, run } of samples) {
      expect(run.stderr).toBe('')
      expect(port(run.stdout.trim().replaceAll(base, '/…'))).toBe(port(output))
    }
  })

  test('--init makes a project, the agent plans, edits both files and says so', async () => {
    const sample = samples.find((s) => s.command.includes('"Add a priority field'))!
    const { run, workspace: ws } = sample
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const lines = run.stdout.trim().split('\n')
    expect(lines[0]).toBe(`created a demo project in ${ws}`)
    expect(lines).toContain('files changed: api/models.py, src/App.jsx')
    expect(lines.at(-1)).toMatch(/^\d+ model calls · stopped end_turn$/)
    expect(await readFile(join(ws, 'api', 'models.py'), 'utf8')).toContain('priority')
    expect(await readFile(join(ws, 'src', 'App.jsx'), 'utf8')).toContain('priority')
  })

  test('the agent asks, the answer comes on stdin, and the run goes on to the edit', async () => {
    const sample = samples.find((s) => s.command.startsWith('echo "The card in src/App.jsx" |'))!
    const { run, workspace: ws } = sample
    expect(sample.command).toContain('--file src/App.jsx --file api/routes.py "Add a due field')
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const lines = run.stdout.trim().split('\n')
    expect(lines).toContain(
      'the agent asks: Which of the 2 selected elements should change? ("Add a due field to it" could mean any of them.)',
    )
    expect(lines).toContain('answer: The card in src/App.jsx')
    expect(lines).toContain('files changed: src/App.jsx')
    expect(lines.at(-1)).toBe('4 model calls · stopped end_turn')
    expect(await readFile(join(ws, 'src', 'App.jsx'), 'utf8')).toContain('{task.due}')
  })
})

test('bad input: no instruction, a missing root without --init, a file not in the project', async () => {
  const base = await tempDir()
  const none = await codeEditorCli(['--workspace', base])
  expect(none.code).toBe(2)
  expect(none.stderr).toMatch(/^usage: code-editor\.ts \[--workspace DIR\]/)
  // no --workspace and no VCI_OUTPUT_DIR: the seed's /output (absent here)
  const output = await codeEditorCli(['Add a field'])
  expect(output).toEqual({
    code: 2,
    stdout: '',
    stderr:
      'code-editor: VCI_OUTPUT_DIR /output: no such directory; pass --init to create a demo project there, or --workspace DIR\n',
  })
  const missing = await codeEditorCli(['--workspace', join(base, 'nope'), 'Add a field'])
  expect(missing).toEqual({
    code: 2,
    stdout: '',
    stderr: `code-editor: --workspace ${join(base, 'nope')}: no such directory; pass --init to create a demo project there\n`,
  })
  expect(existsSync(join(base, 'nope'))).toBe(false)
  const file = await codeEditorCli([
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

test('no answer (stdin closed): exit 1 with the question and how to answer it', async () => {
  const base = await tempDir()
  const r = await codeEditorCli([
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
  const out = join(await tempDir(), 'output')
  const r = await codeEditorCli(
    ['--init', 'Add a priority field to tasks and show it on the task card'],
    { env: { VCI_OUTPUT_DIR: out } },
  )
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  expect(r.stdout.split('\n')[0]).toBe(`created a demo project in ${out}`)
  expect(await readFile(join(out, 'api', 'models.py'), 'utf8')).toContain('priority')
}, 120_000)
