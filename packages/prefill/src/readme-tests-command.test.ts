// The README names the command that runs this package's tests (the design's `pnpm test prefill`):
// that command, asked to list instead of run, lists exactly this package's test files.
import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const pkg = fileURLToPath(new URL('..', import.meta.url))
const root = join(pkg, '..', '..')

test('the README names the command that runs the prefill tests, and it lists every one of them', async () => {
  const readme = await readFile(join(pkg, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('\n## Tests\n'))
  const command = /`pnpm (vitest run [^`]+)`/.exec(section)?.[1]
  expect(command).toBe('vitest run --project prefill')
  const args = (command ?? '').split(' ').slice(2)
  // `vitest list --filesOnly` collects what `vitest run` would run, without running it
  const vitest = join(
    dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')),
    'vitest.mjs',
  )
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [vitest, 'list', ...args, '--filesOnly'],
    { cwd: root, env: { ...process.env, CI: '1' }, maxBuffer: 1 << 20 },
  )
  const listed = stdout
    .split('\n')
    .map((l) => /^\[prefill\] (\S+)$/.exec(l.trim())?.[1])
    .filter((f): f is string => f !== undefined)
    .sort()
  const files = (await readdir(join(pkg, 'src')))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `packages/prefill/src/${f}`)
    .sort()
  expect(listed).toEqual(files)
  expect(stdout).not.toMatch(/^\[(?!prefill\])/m)
}, 300_000)
