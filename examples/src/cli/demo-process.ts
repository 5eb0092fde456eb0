import { execFile } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/** The repository root (tests run the demo from there, as users do). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/** The demo's command line, as `pnpm demo` runs it (node + tsx). */
export const DEMO = join(REPO_ROOT, 'examples', 'src', 'demo.ts')
const run = promisify(execFile)

/** What a finished demo process printed, and its exit code. */
export interface DemoProcessResult {
  code: number
  stdout: string
  stderr: string
}

/** This process's environment without an API key or forced colours, and `extra` over it. */
export function demoEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra }
  delete env.ANTHROPIC_API_KEY
  delete env.FORCE_COLOR
  return env
}

/**
 * Run the demo as users do, in a real child process (node + tsx on the source) from the
 * repository root, in {@link demoEnv} with `env` over it (e.g. the `npm_execpath` a launcher
 * sets), `stdin` piped in then closed; never rejects: a failing run is its exit code and output.
 */
export async function demoProcess(
  args: readonly string[],
  options: { env?: Readonly<Record<string, string>>; stdin?: string } = {},
): Promise<DemoProcessResult> {
  try {
    const child = run(process.execPath, ['--import', 'tsx', DEMO, ...args], {
      cwd: REPO_ROOT,
      env: demoEnv(options.env),
      timeout: 60_000,
    })
    if (options.stdin !== undefined) child.child.stdin?.end(options.stdin)
    const { stdout, stderr } = await child
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}
