import { execFile } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/** The repository root (tests run the demo from there, as users do). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

const DEMO = join(REPO_ROOT, 'examples', 'src', 'demo.ts')
const run = promisify(execFile)

/** What a finished demo process printed, and its exit code. */
export interface DemoProcessResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * Run the demo as users do, in a real child process (node + tsx on the source) from the
 * repository root, without an API key or forced colours, with this process's environment and
 * `env` over it (e.g. the `npm_execpath` a launcher sets); never rejects: a failing run is its
 * exit code and output.
 */
export async function demoProcess(
  args: readonly string[],
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<DemoProcessResult> {
  const env = { ...process.env, ...extraEnv }
  delete env.ANTHROPIC_API_KEY
  delete env.FORCE_COLOR
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', DEMO, ...args], {
      cwd: REPO_ROOT,
      env,
      timeout: 60_000,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}
