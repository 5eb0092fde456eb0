import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { REPO_ROOT } from './demo-process.js'
import { type CliIO, runDemoCli } from './run-cli.js'
import { collector } from './test-support.js'

// The root README's sample chart is a real run's: the second `pnpm demo "What does
// src/report.ts do?"` on a fresh workspace, offline. `UPDATE_SAMPLES=1` writes it into the README.
const README = join(REPO_ROOT, 'README.md')
const INTRO = 'Before the first model call it shows what the request is made of'
const QUESTION = 'What does src/report.ts do?'

async function chartOfRun(workspace: string): Promise<string> {
  const stdout = collector()
  const stderr = collector()
  const io: CliIO = { stdout, stderr, env: {}, cwd: tmpdir() }
  expect(await runDemoCli(['--workspace', workspace, '--init', QUESTION], io)).toBe(0)
  const lines = stdout.text().split('\n')
  const start = lines.findIndex((l) => l.startsWith('context budget · '))
  const end = lines.findIndex((l, i) => i > start && l.startsWith('  omitted: '))
  expect(start).toBeGreaterThanOrEqual(0)
  expect(end).toBeGreaterThan(start)
  return lines.slice(start, end + 1).join('\n')
}

test('the README sample chart is the chart of a real run (the second on a workspace)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'readme-chart-'))
  try {
    const ws = join(dir, 'ws')
    await chartOfRun(ws)
    const chart = await chartOfRun(ws)
    expect(chart).toMatch(/^ {2}resumption +█/m) // the second run resumes the first
    const readme = await readFile(README, 'utf8')
    const at = readme.indexOf(INTRO)
    expect(at).toBeGreaterThan(0)
    const open = readme.indexOf('```text\n', at) + '```text\n'.length
    const close = readme.indexOf('\n```', open)
    if (process.env.UPDATE_SAMPLES === '1') {
      await writeFile(README, `${readme.slice(0, open)}${chart}${readme.slice(close)}`)
      return
    }
    expect(readme.slice(open, close)).toBe(chart)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}, 120_000)
