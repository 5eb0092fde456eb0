import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { DemoWorkerSpec } from './demo-worker-process.js'

const entry = fileURLToPath(new URL('./demo-worker-process.ts', import.meta.url))

/** One started worker process of `--workers`. */
export interface WorkerProcess {
  workerId: string
  pid: number
  /** Resolves with the exit code (or the signal) when the process has exited. */
  exited: Promise<number | NodeJS.Signals>
  child: ChildProcess
}

/**
 * Start one worker process (demo-worker-process.ts under tsx, with an IPC channel so it closes
 * when this process goes away); resolves once it prints `ready`. Its stderr lines go to `log`,
 * each prefixed with its id.
 */
export async function startWorkerProcess(
  spec: DemoWorkerSpec,
  log: (line: string) => void,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 1)),
  )
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) =>
    log(`${spec.workerId}: ${line}`),
  )
  const stdout = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  await new Promise<void>((resolve, reject) => {
    stdout.once('line', () => resolve())
    void exited.then((code) =>
      reject(new Error(`${spec.workerId} exited (${code}) before it was ready`)),
    )
  })
  return { workerId: spec.workerId, pid: child.pid ?? 0, exited, child }
}

/** Close a worker gracefully (SIGTERM: its `close()`), waiting for its exit code. */
export async function stopWorkerProcess(w: WorkerProcess): Promise<number | NodeJS.Signals> {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM')
  return w.exited
}
