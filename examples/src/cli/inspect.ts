import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { describeError, type SessionStore } from '@contextkit/core'
import {
  type Inspector,
  type InspectorApproval,
  type InspectorChanges,
  startInspector,
} from '@contextkit/inspector'
import { runnerSessionStore } from '../runner-sessions.js'
import { DemoUsageError, USAGE_EXIT_CODE } from './errors.js'
import type { JsonOutput } from './json-output.js'
import { type DemoStores, openStores } from './stores.js'
import { createTerminal, type Terminal } from './terminal.js'
import { prepareWorkspace } from './workspace.js'

/**
 * Where the runner writes each session's JSONL trace: `<workspace>/.contextkit/traces/<id>.jsonl`
 * (the inspector reads these unless the stores keep traces of their own: store-postgres' table).
 */
export function tracesDir(workspace: string): string {
  return join(workspace, '.contextkit', 'traces')
}

/** The sessions the inspector reads: the `--store` ones, else the runner's JSONL files. */
export function inspectedSessions(stores: DemoStores, workspace: string): SessionStore {
  return stores.sessionStore ?? runnerSessionStore(workspace)
}

/** Finish one paused run with the page's decision (the demo's own tools and backend). */
export type DemoResume = (
  sessionId: string,
  approvals: Record<string, InspectorApproval>,
) => Promise<unknown>

/**
 * Serve the inspector over a workspace's sessions and traces on 127.0.0.1 (`port`, default a
 * free one) and print its one line: `inspector: http://127.0.0.1:PORT/?token=TOKEN`. `resume`
 * gives the page Approve/Deny; `changes` wakes its live streams (the workers' progress notices).
 */
export async function serveInspector(input: {
  workspace: string
  stores: DemoStores
  resume?: DemoResume
  changes?: InspectorChanges
  port?: number
  print: (line: string) => void
}): Promise<Inspector> {
  const inspector = await startInspector({
    sessions: inspectedSessions(input.stores, input.workspace),
    traces: input.stores.traces ?? tracesDir(input.workspace),
    ...(input.resume === undefined ? {} : { resume: input.resume }),
    ...(input.changes === undefined ? {} : { changes: input.changes }),
    ...(input.port === undefined ? {} : { port: input.port }),
  })
  input.print(`inspector: ${inspector.url}`)
  return inspector
}

/** `--inspect`: serve the inspector over the workspace while the run goes; its closer. */
export async function inspectRuns(
  workspace: string,
  resume: DemoResume,
  out: { term: Terminal; json?: JsonOutput },
  stores: DemoStores,
): Promise<() => Promise<void>> {
  const inspector = await serveInspector({
    workspace,
    stores,
    resume,
    print: (line) =>
      out.json
        ? out.json.event({ type: 'demo-inspector', url: line.slice(11) })
        : out.term.line(line),
  })
  return () => inspector.close()
}

/** Resolves when `signal` aborts (SIGINT or SIGTERM); at once when it already has. */
export function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise(() => {})
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}

/** What `pnpm inspect` was asked to do. */
export interface InspectArgs {
  workspace: string
  store?: string
  port?: number
  help: boolean
}

/** The usage text of `pnpm inspect`. */
export const INSPECT_USAGE = `Usage: pnpm inspect --workspace DIR [--store SPEC] [--port N]

Serves the inspector over the sessions of a workspace (what the model saw on each step, the cache,
compactions, tool calls) on 127.0.0.1, until Ctrl-C. Approving a paused call from the page
finishes the run with the demo's tools (offline emulator, or Claude with ANTHROPIC_API_KEY).

Options:
  --workspace DIR  the demo workspace whose sessions to show (required)
  --store SPEC     files (default) | postgres:<connection url> | pglite:<dir>
  --port N         the port (default: a free one)
  -h, --help       this text`

/** Parse `pnpm inspect`'s arguments; a {@link DemoUsageError} for anything else. */
export function parseInspectArgs(argv: readonly string[]): InspectArgs {
  let values: { workspace?: string; store?: string; port?: string; help?: boolean }
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        workspace: { type: 'string' },
        store: { type: 'string' },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    throw new DemoUsageError('bad_flag', (error as Error).message.split('\n')[0] ?? 'bad arguments')
  }
  if (values.help) return { workspace: '', help: true }
  if (!values.workspace) throw new DemoUsageError('bad_flag', '--workspace DIR is required')
  const port = values.port === undefined ? undefined : Number(values.port)
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new DemoUsageError('bad_flag', `--port must be 0-65535, got "${values.port}"`)
  }
  return {
    workspace: values.workspace,
    ...(values.store === undefined ? {} : { store: values.store }),
    ...(port === undefined ? {} : { port }),
    help: false,
  }
}

/** Where `pnpm inspect` reads and writes (the demo's `CliIO`, with a resume to give the page). */
export interface InspectIO {
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
  cwd: string
  signal?: AbortSignal
  /** Builds the resume over the opened stores (the demo's runner on this workspace). */
  resumer(
    workspace: string,
    stores: DemoStores,
  ): Promise<{ resume: DemoResume; close(): Promise<void> }>
}

/**
 * `pnpm inspect --workspace DIR [--store …] [--port N]`: serve the inspector over the workspace's
 * sessions until SIGINT/SIGTERM, then exit 0. Bad input: one line on stderr and exit code 2.
 */
export async function runInspectCli(argv: readonly string[], io: InspectIO): Promise<number> {
  const cleanups: Array<() => Promise<void>> = []
  try {
    const args = parseInspectArgs(argv)
    if (args.help) {
      io.stdout.write(`${INSPECT_USAGE}\n`)
      return 0
    }
    const ws = await prepareWorkspace(resolve(io.cwd, args.workspace), { create: false })
    const stores = await openStores(args.store, ws.dir, io.cwd)
    cleanups.push(() => stores.close())
    const resumer = await io.resumer(ws.dir, stores)
    cleanups.push(() => resumer.close())
    const term = createTerminal(io.stdout, {})
    const inspector = await serveInspector({
      workspace: ws.dir,
      stores,
      resume: resumer.resume,
      ...(args.port === undefined ? {} : { port: args.port }),
      print: (line) => term.line(line),
    })
    cleanups.push(() => inspector.close())
    await untilStopped(io.signal)
    return 0
  } catch (error) {
    if (DemoUsageError.isInstance(error)) {
      io.stderr.write(`inspect: ${error.message}\n`)
      return USAGE_EXIT_CODE
    }
    io.stderr.write(`inspect: ${describeError(error)}\n`)
    return 1
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
  }
}
