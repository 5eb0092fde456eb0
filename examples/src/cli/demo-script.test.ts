import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

// `pnpm demo` from anywhere in the repository: every workspace package has a `demo` script that
// runs the root's scripts/demo.mjs, so `pnpm -s demo` in packages/core does not exit 254 silently.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const run = promisify(execFile)

const workspaces = [
  ...readdirSync(join(repo, 'packages')).map((name) => join('packages', name)),
  'examples',
  'package-tests',
]

test('every workspace package runs the demo from its own directory', async () => {
  for (const dir of workspaces) {
    const json = JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>
    }
    const script = json.scripts?.demo
    expect(script, `${dir}/package.json scripts.demo`).toMatch(/^node (\.\.\/)+scripts\/demo\.mjs$/)
    const target = resolve(repo, dir, script!.split(' ')[1]!)
    expect(target).toBe(join(repo, 'scripts', 'demo.mjs'))
  }
  const { stdout } = await run(
    'sh',
    [
      '-c',
      JSON.parse(readFileSync(join(repo, 'packages', 'core', 'package.json'), 'utf8')).scripts
        .demo + ' --help',
    ],
    {
      cwd: join(repo, 'packages', 'core'),
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      timeout: 120_000,
    },
  )
  expect(stdout).toMatch(/^Usage: pnpm demo/)
}, 150_000)
