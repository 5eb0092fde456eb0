import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
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

test('"first run" is said only when a package the demo builds is unbuilt (a package it never builds does not count)', async () => {
  const { demoBuilt } = await import('../../../scripts/demo-built.mjs')
  const root = await mkdtemp(join(tmpdir(), 'demo-built-'))
  try {
    const write = async (path: string, json: object) => {
      await mkdir(dirname(join(root, path)), { recursive: true })
      await writeFile(join(root, path), JSON.stringify(json))
    }
    await write('examples/package.json', { name: 'ex', dependencies: { '@x/a': 'workspace:^' } })
    await write('packages/a/package.json', { name: '@x/a', dependencies: { '@x/b': '0.0.0' } })
    await write('packages/b/package.json', { name: '@x/b' })
    // like @contextkit/ai-sdk: a package the examples never import, so the demo never builds it
    await write('packages/c/package.json', { name: '@x/c' })
    await write('packages/a/dist/index.js', {})
    expect(demoBuilt(root)).toBe(false) // b, which a needs, is not built
    await write('packages/b/dist/index.js', {})
    expect(demoBuilt(root)).toBe(true) // c is still unbuilt: it does not count
  } finally {
    await rm(root, { recursive: true, force: true })
  }
})

test('the packages the demo checks are the ones its turbo build makes', async () => {
  const { demoBuildFolders } = await import('../../../scripts/demo-built.mjs')
  const turbo = join(repo, 'node_modules', '.bin', 'turbo')
  const { stdout } = await run(
    turbo,
    ['run', 'build', '--filter=@contextkit/examples^...', '--dry-run=json'],
    { cwd: repo, env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' }, timeout: 120_000 },
  )
  const plan = JSON.parse(stdout) as { tasks: { directory: string }[] }
  const built = [...new Set(plan.tasks.map((t) => join(repo, t.directory)))].sort()
  expect(demoBuildFolders(repo)).toEqual(built)
}, 150_000)
