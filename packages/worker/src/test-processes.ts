// Test-only: worker processes (worker-process.fixture.ts) started, killed and restarted by the
// multi-process test and the bench.
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { bundleFixture } from '../../../test-utils/temp-dir.js'

const fixtureUrl = new URL('./worker-process.fixture.ts', import.meta.url)
const fixture = fileURLToPath(fixtureUrl)

/**
 * Bundle the worker fixture once into `dir` and return the bundle's path: `node` starts it in a
 * fraction of what `--import tsx` takes to load the fixture's TypeScript module by module (a
 * start and each restart after a kill paid about 3.5 s of CPU under load with tsx).
 */
export function bundleWorkerFixture(dir: string): Promise<string> {
  return bundleFixture(fixtureUrl, dir, build, { commonJs: true })
}

/** A worker process, resolved once it prints `ready`. */
export interface WorkerProcess {
  child: ChildProcess
  /** Resolves when the process has exited. */
  exited: Promise<void>
}

/** Start one worker process on `url`; resolves once it takes jobs. */
export async function startWorkerProcess(
  args: { url: string; concurrency: number; recordCalls?: boolean },
  /** The bundle of {@link bundleWorkerFixture}; without it the fixture runs under tsx. */
  bundle?: string,
): Promise<WorkerProcess> {
  const entry = bundle ? [bundle] : ['--import', 'tsx', fixture]
  const child = spawn(process.execPath, [...entry, JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  await new Promise<void>((resolve, reject) => {
    lines.once('line', () => resolve())
    child.once('exit', (code) => reject(new Error(`worker process exited (${code}) before ready`)))
  })
  return { child, exited }
}

/** Stop gracefully (SIGTERM: `close()`), waiting for the exit. */
export async function stopWorkerProcess(w: WorkerProcess): Promise<void> {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM')
  await w.exited
}
