import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { afterAll, describe, expect, test } from 'vitest'
import { demoInProcess } from './demo-in-process.js'
import { DEMO, demoEnv, demoProcess, REPO_ROOT } from './demo-process.js'
import { offlineScenario } from './offline-scenario.js'
import { demoCommand, echoOf } from './run-turn.js'

// What a new user gets wrong, tried as they would. What needs the process itself (the message on
// a real stdin pipe, Ctrl-C as a signal) runs the demo as a child process (node + tsx); the rest
// is the demo's command line (runDemoCli, which demo.ts only wires to the process) run here, so
// each check does not pay a tsx start (about 4 CPU-seconds on a loaded machine).
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'demo-input-'))
  dirs.push(dir)
  return dir
}

/** The demo's command line in this process, run in `REPO_ROOT`. */
const demoCli = (args: string[]) => demoInProcess(args, REPO_ROOT)

describe('the demo, given what users get wrong', () => {
  test('a --workspace that does not exist is an error (no directory made); --init creates it', async () => {
    const missing = join(await tempDir(), 'x', 'deeper')
    const r = await demoCli(['--workspace', missing, 'hi'])
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `demo: --workspace ${missing}: no such directory; pass --init to create a demo workspace there\n`,
    })
    expect(existsSync(missing)).toBe(false)
    const init = await demoCli([
      '--workspace',
      missing,
      '--init',
      'What files are in this workspace?',
    ])
    expect(init.code).toBe(0)
    expect(init.stdout).toContain('(created from the demo template)')
  }, 90_000)

  test('an empty message is an error, not the walkthrough', async () => {
    const r = await demoCli(['--workspace', await tempDir(), ''])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      'demo: the message is empty: give a question, or no message at all for the walkthrough\n',
    )
  }, 60_000)

  test('--message-file: a 150 KB message runs, echoed as its first line and size', async () => {
    const dir = await tempDir()
    const file = join(dir, 'question.txt')
    await writeFile(
      file,
      `What files are in this workspace?\n${'Some pasted log line.\n'.repeat(7000)}`,
    )
    const r = await demoCli(['--workspace', join(dir, 'ws'), '--init', '--message-file', file])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const you = r.stdout.split('\n').find((l) => l.startsWith('you ('))
    expect(you).toMatch(
      /› What files are in this workspace\? … \(154,033 characters, 7,001 lines\)$/,
    )
    expect(r.stdout.length).toBeLessThan(60_000)
  }, 90_000)

  test('- reads the message from standard input', async () => {
    const dir = await tempDir()
    // a real pipe into a real process: the message arrives on its stdin
    const r = await demoProcess(['--workspace', join(dir, 'ws'), '--init', '-'], {
      stdin: 'What files are in this workspace?\n',
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('› What files are in this workspace?')
    const missing = await demoCli([
      '--workspace',
      join(dir, 'ws'),
      '--message-file',
      join(dir, 'nope.txt'),
    ])
    expect(missing).toMatchObject({
      code: 2,
      stderr: `demo: --message-file ${join(dir, 'nope.txt')}: no such file\n`,
    })
  }, 90_000)

  test('a message larger than the window is refused before any model call, naming the sizes', async () => {
    const dir = await tempDir()
    const server = await startAnthropicEmulator({ script: offlineScenario })
    try {
      const file = join(dir, 'huge.txt')
      await writeFile(file, 'word '.repeat(200_000))
      const r = await demoCli([
        '--workspace',
        join(dir, 'ws'),
        '--init',
        '--base-url',
        `${server.url}/v1`,
        '--model',
        'qwen2.5-7b-instruct',
        '--message-file',
        file,
      ])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(
        /^demo: the message is about [\d,]+ tokens \(999,999 characters\); qwen2\.5-7b-instruct takes 100,000 tokens in all, 98,976 with room for the reply: shorten it or send a file the agent can read\n$/,
      )
      expect(server.requests.filter((q) => q.path === '/v1/completions')).toHaveLength(0)
    } finally {
      await server.close()
    }
  }, 90_000)

  test('/proc as the workspace: one line and exit code 2, at once', async () => {
    const r = await demoCli(['--workspace', '/proc', 'hi'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^demo: cannot use --workspace \/proc: /)
  }, 60_000)

  test('Ctrl-C: one line, always the same, exit code 130, and where the next run resumes', async () => {
    const dir = await tempDir()
    // a slow local server, so the run is still streaming when Ctrl-C comes
    const server = await startAnthropicEmulator({
      script: () => ({ text: 'A long answer. '.repeat(200) }),
      transport: { deltaChars: 4, chunkDelayMs: 20 },
    })
    try {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          DEMO,
          '--workspace',
          join(dir, 'ws'),
          '--init',
          '--session',
          's-ctrl-c',
          '--base-url',
          `${server.url}/v1`,
          '--model',
          'qwen2.5-7b-instruct',
          'Talk.',
        ],
        { cwd: REPO_ROOT, env: demoEnv() },
      )
      let stdout = ''
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString()
      })
      // one Ctrl-C, sent once: a second SIGINT that lands while Node tears the process down
      // (after the demo printed its line) is a kill by signal on Node 22/24, which a shell also
      // reports as 130, but `exit` then gives `null`
      let interrupted = false
      const code = await new Promise<number | null>((done) => {
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString()
          if (!interrupted && stdout.includes('A long answer.')) {
            interrupted = true
            child.kill('SIGINT')
          }
        })
        child.on('exit', (c) => done(c))
      })
      expect(code).toBe(130)
      expect(stderr).toMatch(
        /^demo: interrupted \(Ctrl-C\)\. What finished is saved in session s-ctrl-c \([^)]*\); continue it with --session s-ctrl-c\.\n$/,
      )
      expect(stdout).not.toMatch(/AbortedError|stopped\s+aborted/)
    } finally {
      await server.close()
    }
  }, 90_000)
})

describe('what the demo says about itself', () => {
  test('the hint names the command the user ran', () => {
    expect(
      demoCommand({
        npm_execpath: '/root/.npm/_npx/3f1/node_modules/pnpm/bin/pnpm.cjs',
        npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64',
      }),
    ).toBe('npx --yes pnpm@10.34.9 demo')
    expect(demoCommand({ npm_execpath: '/usr/lib/node_modules/pnpm/bin/pnpm.cjs' })).toBe(
      'pnpm demo',
    )
    expect(demoCommand({})).toBe('pnpm demo')
  })

  test('a long or multi-line message is echoed as its first line and size', () => {
    expect(echoOf('short')).toBe('short')
    expect(echoOf(`${'a'.repeat(300)}`)).toBe(`${'a'.repeat(120)}… … (300 characters, 1 line)`)
    expect(echoOf('one\ntwo')).toBe('one … (7 characters, 2 lines)')
  })
})
