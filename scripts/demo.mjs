#!/usr/bin/env node
// `pnpm demo`: build the packages the examples use without printing the build (its output is
// shown only when it fails), then run the demo's command line (examples/src/demo.ts) with every
// argument. A first run (no build yet) says so at once, and a build that takes longer than a
// moment says so too: one line, with the elapsed seconds on a terminal. `pnpm inspect`
// (scripts/inspect.mjs) runs examples/src/inspect.ts the same way: it sets
// `globalThis.contextkitProgram` before importing this file.
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { demoBuilt } from './demo-built.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** The program to run after the build, and the word its lines start with. */
const program = globalThis.contextkitProgram ?? { file: 'demo.ts', label: 'demo' }
const turbo = join(
  root,
  'node_modules',
  '.bin',
  process.platform === 'win32' ? 'turbo.cmd' : 'turbo',
)

/** One line about the build on stderr: redrawn with the elapsed time on a terminal, plain otherwise. */
function progress(firstRun) {
  const tty = process.stderr.isTTY === true
  const started = Date.now()
  const text = firstRun
    ? 'building the packages (first run, about a minute)…'
    : 'building the packages…'
  let timer
  let shown = false
  const show = () => {
    shown = true
    if (!tty) {
      process.stderr.write(`${program.label}: ${text}\n`)
      return
    }
    const draw = () =>
      process.stderr.write(
        `\r\u001b[2K${program.label}: ${text} ${Math.round((Date.now() - started) / 1000)} s`,
      )
    draw()
    timer = setInterval(draw, 1000)
  }
  // a cached build takes a second or two: say nothing unless this one takes longer
  const wait = setTimeout(show, firstRun ? 0 : 3000)
  return () => {
    clearTimeout(wait)
    clearInterval(timer)
    if (shown && tty) process.stderr.write('\r\u001b[2K')
  }
}

const done = progress(!demoBuilt(root))
const build = spawn(
  turbo,
  ['run', 'build', '--filter=@contextkit/examples^...', '--output-logs=errors-only'],
  { cwd: root, env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } },
)
let log = ''
build.stdout.on('data', (d) => {
  log += d
})
build.stderr.on('data', (d) => {
  log += d
})
build.on('error', (error) => {
  done()
  process.stderr.write(`${program.label}: building the packages failed (${error.message})\n`)
  process.exit(1)
})
build.on('close', (status) => {
  done()
  if (status !== 0) {
    process.stderr.write(log)
    process.stderr.write(`${program.label}: building the packages failed\n`)
    process.exit(1)
  }
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'examples', 'src', program.file), ...process.argv.slice(2)],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, INIT_CWD: process.env.INIT_CWD ?? process.cwd() },
    },
  )
  // Ctrl-C reaches the demo too (same process group); it aborts its run and exits by itself;
  // SIGTERM sent to this process is passed on
  process.on('SIGINT', () => {})
  process.on('SIGTERM', () => child.kill('SIGTERM'))
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal === 'SIGINT' ? 130 : 1))
  })
})
