import { describeError } from '@contextkit/core'
import { parseDemoArgs } from './cli/args.js'
import { demoResume } from './cli/demo-resume.js'
import { runInspectCli } from './cli/inspect.js'
import { backendFor, type CliIO, contextFileOf } from './cli/run-cli.js'
import type { Output } from './cli/run-turn.js'
import type { DemoStores } from './cli/stores.js'
import { createTerminal } from './cli/terminal.js'
import { isEntryPoint } from './entry-point.js'

/**
 * The resume `pnpm inspect` gives the page: the demo's runner on `workspace` (offline emulator,
 * or Claude with `ANTHROPIC_API_KEY`), its output on the terminal.
 */
export async function demoResumer(io: CliIO, workspace: string, stores: DemoStores) {
  const args = parseDemoArgs(['--workspace', workspace])
  const backend = await backendFor(args, io)
  const contextFile = await contextFileOf(args, workspace)
  const out: Output = { term: createTerminal(io.stdout, io.env) }
  const resume = demoResume(backend, {
    workspace,
    stores,
    contextFile,
    allowOutsideContextFile: false,
    out,
    io,
    steps: false,
    sameRunFlags: ['--workspace', workspace],
  })
  return { resume, close: () => backend.close() }
}

if (isEntryPoint(import.meta.url)) {
  // `pnpm inspect --workspace DIR [--store …] [--port N]`: serves until SIGINT or SIGTERM
  const controller = new AbortController()
  const stop = () => controller.abort(new Error('stopped'))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  const io: CliIO = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.env.INIT_CWD ?? process.cwd(),
    signal: controller.signal,
  }
  runInspectCli(process.argv.slice(2), {
    ...io,
    resumer: (workspace, stores) => demoResumer(io, workspace, stores),
  }).then(
    (code) => {
      process.exitCode = code
    },
    (error: unknown) => {
      console.error(`inspect: ${describeError(error)}`)
      process.exitCode = 1
    },
  )
}
