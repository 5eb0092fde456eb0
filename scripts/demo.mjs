#!/usr/bin/env node
// `pnpm demo`: build the packages the examples use without printing the build (its output is
// shown only when it fails), then run the demo's command line (examples/src/demo.ts) with every
// argument. The first lines on screen are the demo's own.
import { spawn, spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const turbo = join(
  root,
  'node_modules',
  '.bin',
  process.platform === 'win32' ? 'turbo.cmd' : 'turbo',
)
const build = spawnSync(
  turbo,
  ['run', 'build', '--filter=@contextkit/examples^...', '--output-logs=errors-only'],
  { cwd: root, encoding: 'utf8', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } },
)
if (build.status !== 0) {
  process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}`)
  process.stderr.write(
    `demo: building the packages failed${build.error ? ` (${build.error.message})` : ''}\n`,
  )
  process.exit(1)
}

const child = spawn(
  process.execPath,
  ['--import', 'tsx', join(root, 'examples', 'src', 'demo.ts'), ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, INIT_CWD: process.env.INIT_CWD ?? process.cwd() },
  },
)
// Ctrl-C reaches the demo too (same process group); it aborts its run and exits by itself
process.on('SIGINT', () => {})
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal === 'SIGINT' ? 130 : 1))
})
