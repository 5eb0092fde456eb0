import type { TraceEvent } from '@contextkit/core'

/** Trace stages the embedded runner records itself (the middleware record their own). */
export const RUNNER_STAGES = {
  sessionLoaded: 'turn:session-loaded',
  prepared: 'turn:prepared',
  budget: 'turn:budget',
  request: 'turn:request',
  reply: 'turn:reply',
  tool: 'turn:tool',
  retry: 'turn:retry',
  limit: 'turn:limit',
  finalized: 'turn:finalized',
  saved: 'turn:saved',
  failed: 'turn:failed',
} as const

/** The ARCHITECTURE turn table, one line per step. */
export const TURN_STEPS: Readonly<Record<number, string>> = {
  1: 'load the session',
  2: 'bootstrap files',
  3: 'system sections',
  4: 'user-turn sections',
  5: 'fit to the budget',
  6: 'ephemeral prefill',
  7: 'render the request',
  8: 'stream the reply',
  9: 'run tools',
  10: 'strip ephemeral parts',
  11: 'save session and resumption state',
}

/**
 * Which step of the turn table a trace event belongs to (`undefined` for warnings and events
 * outside the table). Middleware events are mapped by their stage name and, for resumption,
 * by its action (`inject`/`skip` is step 3, `capture` step 11).
 */
export function stepOf(event: Pick<TraceEvent, 'stage' | 'data'>): number | undefined {
  switch (event.stage) {
    case RUNNER_STAGES.sessionLoaded:
      return 1
    case 'preload':
      return 2
    case 'resumption':
      return typeof event.data.action === 'string' && event.data.action.startsWith('capture')
        ? 11
        : 3
    case 'context-metadata':
      return 4
    case RUNNER_STAGES.budget:
      return 5
    case 'session:prefill-injected':
    case 'session:prefill-skipped':
      return 6
    case RUNNER_STAGES.request:
    case RUNNER_STAGES.retry:
    case 'session:prefill-fallback':
      return 7
    case RUNNER_STAGES.reply:
      return 8
    case RUNNER_STAGES.tool:
    case RUNNER_STAGES.limit:
      return 9
    case 'session:prefill-stripped':
    case 'session:prefill-kept':
    case RUNNER_STAGES.finalized:
      return 10
    case RUNNER_STAGES.saved:
      return 11
    default:
      return undefined
  }
}
