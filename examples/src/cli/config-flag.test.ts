// `pnpm demo --config FILE`: the design's `agents.defaults.prefill` and `agents.defaults.cacheTrace`
// read from a JSON file, run offline against the testkit emulator.
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { type CliIO, runDemoCli } from './run-cli.js'
import { collector } from './test-support.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

async function cli(argv: string[], cwd: string) {
  const stdout = collector(false)
  const stderr = collector()
  const io: CliIO = { stdout, stderr, env: {}, cwd }
  const code = await runDemoCli(argv, io)
  return { code, out: stdout.text(), err: stderr.text() }
}

test('--config: the prefill comes from agents.defaults.prefill.file, and cacheTrace: false writes no trace file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-config-'))
  dirs.push(dir)
  const ws = join(dir, 'ws')
  await writeFile(
    join(dir, 'contextkit.json'),
    JSON.stringify({
      agents: {
        defaults: {
          prefill: { enabled: true, file: 'START.md', ephemeral: true },
          cacheTrace: false,
        },
      },
    }),
  )
  const first = await cli(['--workspace', ws, '--init', '--config', 'contextkit.json', 'Hi'], dir)
  expect(first.err).toBe('')
  expect(first.code).toBe(0)
  // START.md does not exist yet: no prefill at all, though the template has a PREFILL.md
  expect(first.out).not.toContain("I'll analyze your request step by step.")
  expect(first.out).toMatch(/^trace {4}off \(cacheTrace: false\)$/m)
  expect(existsSync(join(ws, '.contextkit', 'traces'))).toBe(false)

  await writeFile(join(ws, 'START.md'), 'Short version first:\n')
  const second = await cli(['--workspace', ws, '--config', 'contextkit.json', 'Hi again'], dir)
  expect(second.code).toBe(0)
  expect(second.out).toContain('Short version first:')
  expect(existsSync(join(ws, '.contextkit', 'traces'))).toBe(false)
})

test('--config: an unknown key or a file that is not JSON is a usage error naming it (exit 2)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-config-'))
  dirs.push(dir)
  await writeFile(join(dir, 'typo.json'), JSON.stringify({ agents: { defaults: { prefil: {} } } }))
  await writeFile(join(dir, 'broken.json'), '{ "agents": ')
  const typo = await cli(
    ['--workspace', join(dir, 'ws'), '--init', '--config', 'typo.json', 'Hi'],
    dir,
  )
  expect(typo.code).toBe(2)
  expect(typo.err).toMatch(/^demo: --config .*typo\.json: .*prefil/)
  const broken = await cli(['--workspace', join(dir, 'ws'), '--config', 'broken.json', 'Hi'], dir)
  expect(broken.code).toBe(2)
  expect(broken.err).toMatch(/not JSON/)
})
