// `pnpm demo --inspect` end to end in a real browser (Debian's Chromium through playwright-core):
// the demo runs to a pause, the page at the printed URL shows its steps with the trace's numbers,
// an approval from the page finishes the run, a denial's reason reaches the model, and nothing
// the page asks for leaves 127.0.0.1. Screenshots go to examples/.screenshots/.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { screenshotPath, startBrowser, type TestBrowser } from '../../test-utils/browser.js'
import { REPO_ROOT } from './cli/demo-process.js'
import { runDemoCli } from './cli/run-cli.js'
import { collector } from './cli/test-support.js'

const DEMO = join(REPO_ROOT, 'examples', 'src', 'demo.ts')
let browser: TestBrowser
let demo: ChildProcess
let out = ''
let dir = ''
let ws = ''
let url = ''

/** Resolves when the demo has printed `text` (its output so far is in `out`). */
function printed(text: string | RegExp, ms = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const has = () => (typeof text === 'string' ? out.includes(text) : text.test(out))
    if (has()) return resolve()
    const timer = setTimeout(() => reject(new Error(`the demo never printed ${text}:\n${out}`)), ms)
    demo.stdout?.on('data', () => {
      if (!has()) return
      clearTimeout(timer)
      resolve()
    })
  })
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-inspect-e2e-'))
  ws = join(dir, 'ws')
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  delete env.ANTHROPIC_API_KEY
  const args = [
    '--workspace',
    ws,
    '--init',
    '--inspect',
    'Write a summary of the workspace to notes.md',
  ]
  demo = spawn(process.execPath, ['--import', 'tsx', DEMO, ...args], { cwd: REPO_ROOT, env })
  demo.stdout?.on('data', (d: Buffer) => {
    out += d.toString()
  })
  demo.stderr?.on('data', (d: Buffer) => {
    out += d.toString()
  })
  const [started] = await Promise.all([startBrowser(), printed('The inspector keeps serving')])
  browser = started
  url = /^inspector: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)$/m.exec(out)?.[1] ?? ''
}, 120_000)

afterAll(async () => {
  await browser?.close()
  if (demo && demo.exitCode === null) demo.kill('SIGKILL')
  await rm(dir, { recursive: true, force: true })
})

/** The composition numbers of one trace record: each part's tokens, the reply room, the free space. */
function traceNumbers(session: string): string[][] {
  const file = join(ws, '.contextkit', 'traces', `${session}.jsonl`)
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"stage":"agent:composition"'))
    .map((l) => {
      const r = JSON.parse(l).data as {
        parts: Array<{ tokens: number }>
        reply: number
        free: number
      }
      return [...r.parts.map((p) => p.tokens), r.reply, Math.max(0, r.free)].map((n) =>
        n.toLocaleString('en-US'),
      )
    })
}

async function pageNumbers(page: Page): Promise<string[][]> {
  const cards = page.locator('article.step')
  const out: string[][] = []
  for (let i = 0; i < (await cards.count()); i++) {
    out.push(await cards.nth(i).locator('[data-testid="part-tokens"]').allTextContents())
  }
  return out
}

async function openSession(page: Page, session: string): Promise<void> {
  await page.goto(url)
  await page.getByRole('link', { name: session }).click()
  await page.getByTestId('session-state').waitFor()
}

test('the demo pauses; the page shows its steps with the trace numbers; Approve finishes the run', async () => {
  expect(url).not.toBe('')
  const session = /--session (\S+) --approve/.exec(out)?.[1] ?? ''
  const page = await browser.newPage()
  await openSession(page, session)
  await expect.poll(() => page.getByTestId('session-state').textContent()).toBe('awaiting approval')
  const trace = traceNumbers(session)
  expect(trace.length).toBe(2)
  expect(await page.getByTestId('step-count').textContent()).toBe(String(trace.length))
  expect(await pageNumbers(page)).toEqual(trace)
  await page.screenshot({
    path: await screenshotPath(new URL('..', import.meta.url), 'session-paused.png'),
    fullPage: true,
  })

  await page.getByRole('button', { name: 'Approve' }).click()
  // the page follows the resumed run live, to its end
  await expect
    .poll(() => page.getByTestId('stop-reason').textContent(), { timeout: 30_000 })
    .toBe('end_turn')
  await expect.poll(() => page.getByTestId('session-state').textContent()).toBe('ended')
  expect(existsSync(join(ws, 'notes.md'))).toBe(true)
  expect(await pageNumbers(page)).toEqual(traceNumbers(session))
  const shot = await screenshotPath(new URL('..', import.meta.url), 'session-approved.png')
  await page.screenshot({ path: shot, fullPage: true })
  console.log(`inspector screenshots: ${shot} (and session-paused.png beside it)`)
  await page.close()
}, 60_000)

test('a denial from the page reaches the model with its reason', async () => {
  // a second run in the same workspace (in this process) pauses too; the demo's inspector shows it
  const stdout = collector()
  const io = { stdout, stderr: collector(), env: {}, cwd: tmpdir() }
  expect(
    await runDemoCli(['--workspace', ws, 'Write a summary of the workspace to todo.md'], io),
  ).toBe(0)
  const session = /--session (\S+) --deny/.exec(stdout.text())?.[1] ?? ''
  const page = await browser.newPage()
  await openSession(page, session)
  await page.getByLabel('Reason').fill('not on a Friday')
  await page.getByRole('button', { name: 'Deny' }).click()
  await expect
    .poll(() => page.getByTestId('stop-reason').textContent(), { timeout: 30_000 })
    .toBe('end_turn')
  await expect
    .poll(() => page.locator('article.step').last().textContent())
    .toContain('(reason: "not on a Friday")')
  expect(existsSync(join(ws, 'todo.md'))).toBe(false)
  await page.close()
}, 60_000)

test('nothing the page asked for left 127.0.0.1; SIGTERM stops the demo with exit code 0', async () => {
  expect(browser.requests.length).toBeGreaterThan(0)
  expect(browser.blocked).toEqual([])
  const exited = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)))
  demo.kill('SIGTERM')
  expect(await exited).toBe(0)
})
