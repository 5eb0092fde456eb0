import { readFileSync } from 'node:fs'
import { afterEach, expect, test } from 'vitest'
import { plainEnv, run } from './consumer.js'

const saved = process.env.npm_config_package
const ROOT = new URL('../..', import.meta.url)
const { packageManager } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
  packageManager: string
}

afterEach(() => {
  if (saved === undefined) delete process.env.npm_config_package
  else process.env.npm_config_package = saved
})

// `npx -p node@22 -- node vitest …` (the suite on another Node) sets npm_config_package; a nested
// `npx --yes pnpm@<v>` then looked for a `pnpm@<v>` command inside node@22 and could not pack.
test('a nested npx runs the pinned pnpm when the suite runs under `npx -p node@<major>`', async () => {
  process.env.npm_config_package = 'node@22'
  expect(plainEnv().npm_config_package).toBeUndefined()
  const { stdout } = await run('npx', ['--yes', packageManager, '--version'], {
    cwd: process.cwd(),
  })
  expect(stdout.trim()).toBe(packageManager.split('@')[1])
}, 120_000)
