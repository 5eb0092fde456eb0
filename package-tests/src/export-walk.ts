/**
 * The export walk: every exported function and class of every entry point of every publishable
 * package (from the built `dist`, as consumers import it) called with bad arguments — `null`,
 * `undefined`, `42`, `{}`, `Object.create(null)`, `''` — as argument lists of 1 up to the
 * function's arity + 1 (every argument the same value). A call passes when it returns (a promise
 * that resolves, an async iterator whose first `next()` resolves) or throws / rejects with a
 * typed contextkit error; a `TypeError` or any other error, a promise that never settles, a
 * synchronous hang, or an error escaping the call (unhandled) fails it.
 *
 * Each package is walked in its own child process (export-walk-child.mjs) with a temporary
 * working directory and HOME, so a call that writes files or never returns cannot harm the test
 * runner: on a synchronous hang the parent kills the child and restarts it after that call.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, type WorkspacePackage } from './workspace.js'

/** One module to walk: its exports are labelled `<label>#<export>`. */
export interface WalkModule {
  label: string
  /** A `file:` URL of the module. */
  url: string
}

/** One failing call. */
export interface WalkFailure {
  /** `<specifier>#<export>`. */
  id: string
  /** The call made, e.g. `fitSections(null, null)`. */
  call: string
  /** What went wrong, e.g. `TypeError: Cannot read properties of null (reading 'length')`. */
  failure: string
}

export interface WalkResult {
  /** Number of (export, argument list) combinations walked. */
  calls: number
  failures: WalkFailure[]
  /** Labels of the exports walked (after the skip list). */
  exports: Set<string>
}

export interface WalkOptions {
  /** `<label>#<export>` ids not to call (see the allow-list in export-walk.test.ts). */
  skip?: readonly string[]
  /** Per call: a promise that takes longer is a hang. Default 2000 ms. */
  timeoutMs?: number
}

const CHILD = join(ROOT, 'package-tests', 'src', 'export-walk-child.mjs')
const CORE = pathToFileURL(join(ROOT, 'packages', 'core', 'dist', 'index.js')).href

/**
 * The built modules of each entry point of `pkg`, as consumers resolve them: the `node` branch
 * (the bundled build in `dist/bundle/`; for a root with `./node`, the pure API plus the Node-only
 * one) and the `default` one (the per-module files bundlers get; an export already reached is
 * walked once).
 */
export function entryModules(pkg: WorkspacePackage): WalkModule[] {
  return pkg.entries.flatMap((entry) => {
    const target = pkg.json.exports?.[entry.subpath] as Record<string, unknown>
    const module = (label: string, file: unknown) => ({
      label,
      url: pathToFileURL(join(pkg.dir, String(file))).href,
    })
    const { node, default: pure } = target as Record<string, Record<string, string> | undefined>
    if (node && pure) {
      return [
        module(entry.specifier, node.import),
        module(`${entry.specifier} (default)`, pure.import),
      ]
    }
    return [module(entry.specifier, target.import)]
  })
}

/** Walk the exports of `modules` in one child process (restarted after a synchronous hang). */
export async function walkModules(
  modules: readonly WalkModule[],
  options: WalkOptions = {},
): Promise<WalkResult> {
  const timeoutMs = options.timeoutMs ?? 2000
  const result: WalkResult = { calls: 0, failures: [], exports: new Set() }
  const cwd = await mkdtemp(join(tmpdir(), 'contextkit-export-walk-'))
  try {
    let start = 0
    for (;;) {
      const next = await runChild(
        { modules, coreUrl: CORE, skip: options.skip ?? [], start, timeoutMs },
        cwd,
        timeoutMs,
        result,
      )
      if (next === undefined) break
      start = next
    }
  } finally {
    await rm(cwd, { recursive: true, force: true, maxRetries: 3 })
  }
  return result
}

interface ChildInput {
  modules: readonly WalkModule[]
  coreUrl: string
  skip: readonly string[]
  start: number
  timeoutMs: number
}

interface ChildMessage {
  type: 'start' | 'result' | 'stray' | 'done'
  index: number
  id: string
  call: string
  failure?: string
  total?: number
}

/**
 * Run one child from `input.start`. Resolves `undefined` when it walked everything, or the index
 * to restart from when it hung or died in a call (that call is recorded as a failure).
 */
function runChild(
  input: ChildInput,
  cwd: string,
  timeoutMs: number,
  result: WalkResult,
): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = fork(CHILD, [JSON.stringify(input)], {
      cwd,
      env: { ...process.env, HOME: cwd, NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000)
    })
    let current: ChildMessage | undefined
    let last: ChildMessage | undefined
    let finished = false
    let watchdog: NodeJS.Timeout | undefined
    const fail = (message: ChildMessage, failure: string) => {
      result.failures.push({ id: message.id, call: message.call, failure })
    }
    const stop = (next: number | undefined, failure?: string) => {
      if (finished) return
      finished = true
      clearTimeout(watchdog)
      if (failure !== undefined && current) {
        result.calls++
        fail(current, failure)
      }
      child.kill('SIGKILL')
      resolve(next)
    }
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'start') {
        current = message
        last = message
        result.exports.add(message.id)
        clearTimeout(watchdog)
        // A promise is timed out in the child; only a blocked event loop gets this far.
        watchdog = setTimeout(
          () => stop(message.index + 1, 'hang: blocked the event loop (process killed)'),
          timeoutMs + 1000,
        )
      } else if (message.type === 'result') {
        clearTimeout(watchdog)
        result.calls++
        if (message.failure !== undefined) fail(message, message.failure)
        current = undefined
      } else if (message.type === 'stray') {
        // An error that escaped a call surfaces later: blame the call that ran last.
        if (message.failure !== undefined && last) fail(last, message.failure)
      } else if (message.type === 'done') {
        stop(undefined)
      }
    })
    child.on('exit', (code, signal) => {
      if (finished) return
      if (!current) {
        finished = true
        clearTimeout(watchdog)
        reject(new Error(`export walk child exited (${code ?? signal}) between calls:\n${stderr}`))
        return
      }
      stop(current.index + 1, `ended the process (exit ${code ?? signal})`)
    })
  })
}
