import { ContextkitError } from '@contextkit/core'

/** What was wrong with the command line: the one-line error names it, the exit code is 2. */
export type DemoUsageProblem =
  | 'unknown_flag'
  | 'bad_flag'
  | 'workspace'
  | 'model'
  | 'base_url'
  | 'store'
  | 'context_file'
  | 'message'
  | 'config'

/** Exit code for bad input (usage errors), as most command-line tools use it. */
export const USAGE_EXIT_CODE = 2

/**
 * Bad input to `pnpm demo`: an unknown flag, an unreadable workspace, an unknown model id, an
 * unreachable `--base-url`, a store that cannot be opened. `details.problem` says which, and the
 * message is one line meant for the user (with a suggestion when there is one).
 */
export class DemoUsageError extends ContextkitError {
  static override readonly code: string = 'examples_demo_usage'
  readonly problem: DemoUsageProblem

  constructor(problem: DemoUsageProblem, message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, details: { problem } })
    this.problem = problem
  }
}
