import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, test } from 'vitest'
import { runContextFileCli } from './context-file.js'
import { defaultTimeLimitMs } from './context-file-sandbox.js'
import { askedOf } from './context-file-script.js'

// The recursive agent over a large file as a user runs it: a child process (node + tsx), once.
// The other checks need only the command line's logic: runContextFileCli (which context-file.ts
// wires to the process) runs here, without a tsx start (about 4 CPU-seconds on a loaded machine).
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const program = join(repo, 'examples', 'src', 'context-file.ts')
const run = promisify(execFile)
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

/** The command line in this process, as context-file.ts runs it, without an API key. */
async function contextFileCli(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runContextFileCli(args, {
    log: (line) => out.push(`${line}\n`),
    error: (line) => err.push(`${line}\n`),
    env: {},
  })
  return { code, stdout: out.join(''), stderr: err.join('') }
}

/** The command as a child process (node + tsx), as a user runs it, without an API key. */
async function contextFileProcess(args: string[]) {
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

/** A feed of posts whose `hashtags` are arrays; `#afc` is the most common. */
async function feed(records: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ctx-cli-'))
  dirs.push(dir)
  const tags = ['#afc', '#coys', '#mufc', '#lfc']
  const lines: string[] = []
  for (let i = 0; i < records; i++) {
    const hashtags = i % 3 === 0 ? ['#afc'] : [tags[i % tags.length]!, '#afc']
    lines.push(JSON.stringify({ author: `user${i % 97}`, text: `post ${i}`, hashtags }))
  }
  const file = join(dir, 'feed.ndjson')
  await writeFile(file, `${lines.join('\n')}\n`)
  return file
}

describe('examples/src/context-file.ts as a command', () => {
  test('"most common hashtag?" on 25,000 posts: the most common value, not a count of arrays', async () => {
    const file = await feed(25_000)
    const r = await contextFileProcess(['--context-file', file, 'What is the most common hashtag?'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.trim().split('\n').at(-1)).toBe('answer: "#afc"')
  }, 120_000)

  test('"how many unique authors?": the distinct count', async () => {
    const file = await feed(2_000)
    const r = await contextFileCli(['--context-file', file, 'How many unique authors?'])
    expect(r.stdout.trim().split('\n').at(-1)).toBe('answer: 97')
  }, 120_000)

  test('inline --context beside --context-file: the same flow on the text itself', async () => {
    const text = ['{"author":"a"}', '{"author":"b"}', '{"author":"a"}'].join('\n')
    const r = await contextFileCli(['--context', text, 'How many unique authors?'])
    expect(r.stderr).toBe('')
    expect(r.stdout.trim().split('\n').at(-1)).toBe('answer: 2')
    const both = await contextFileCli([
      '--context',
      text,
      '--context-file',
      'x.ndjson',
      'How many?',
    ])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('usage: context-file.ts (--context-file FILE | --context TEXT)')
  }, 120_000)

  test('scripts that run out without SUBMIT: the extract step answers, exit 0', async () => {
    const file = await feed(100)
    const r = await contextFileCli([
      '--context-file',
      file,
      '--no-metadata',
      '--max-iterations',
      '1',
      'How many unique authors?',
    ])
    expect(r.code).toBe(0)
    expect(r.stdout.trim().split('\n').at(-1)).toBe(
      'answer (extracted: no SUBMIT after 1 script(s)): "No answer yet: the scripts only explored the data (its size and how it starts)."',
    )
  }, 120_000)

  test('a run that ends without an answer exits 1 with one clear line', async () => {
    const file = await feed(100)
    const r = await contextFileCli([
      '--context-file',
      file,
      '--no-metadata',
      '--no-extract',
      '--max-iterations',
      '1',
      'How many unique authors?',
    ])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      'context-file: no answer: the model stopped (max_steps) after 1 script(s) without calling SUBMIT\n',
    )
  }, 120_000)

  test('a missing --context-file is one line and exit code 2, no stack', async () => {
    const r = await contextFileCli(['--context-file', '/nonexistent/feed.ndjson', 'How many?'])
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'context-file: --context-file /nonexistent/feed.ndjson: no such file\n',
    })
  }, 60_000)
})

describe('the limits and the script logic', () => {
  test('the sandbox time limit grows with the input', () => {
    expect(defaultTimeLimitMs(0)).toBe(2000)
    expect(defaultTimeLimitMs(4_000_000)).toBe(6000)
    expect(defaultTimeLimitMs(9_600_000)).toBe(11_600)
  })

  test('what a question asks', () => {
    expect(askedOf('What is the most common hashtag?')).toBe('most-common')
    expect(askedOf('Which tag is most frequent?')).toBe('most-common')
    expect(askedOf('How many unique authors?')).toBe('distinct')
  })
})
