// Test-only: the demo's command line run in the test's own process (runDemoCli, which demo.ts
// wires to the real process), for checks of its logic that need no second tsx start.
import { runDemoCli } from './run-cli.js'
import { collector } from './test-support.js'

/** Run the demo's command line with `args` in `cwd`: its exit code and what it printed. */
export async function demoInProcess(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = collector()
  const stderr = collector()
  const code = await runDemoCli(args, { stdout, stderr, env: {}, cwd })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}
