import { AGENT_TRACE_STAGES } from '@contextkit/agent-loop'
import type { TraceEvent } from '@contextkit/core'
import { PREFILL_TRACE_STAGES } from '@contextkit/prefill/node'
import { RESUMPTION_TRACE_STAGES } from '@contextkit/resumption/node'

/**
 * Stages of the two middleware that do not export theirs as constants yet (preload,
 * context-metadata): named once here.
 */
export const MIDDLEWARE_STAGES = {
  preload: 'preload',
  contextMetadata: 'context-metadata',
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

const BY_STAGE: ReadonlyMap<string, number> = new Map<string, number>([
  [AGENT_TRACE_STAGES.sessionLoaded, 1],
  [MIDDLEWARE_STAGES.preload, 2],
  [MIDDLEWARE_STAGES.contextMetadata, 4],
  [AGENT_TRACE_STAGES.budget, 5],
  [PREFILL_TRACE_STAGES.injected, 6],
  [PREFILL_TRACE_STAGES.skipped, 6],
  [AGENT_TRACE_STAGES.request, 7],
  [AGENT_TRACE_STAGES.recovered, 7],
  [PREFILL_TRACE_STAGES.fallback, 7],
  [AGENT_TRACE_STAGES.reply, 8],
  [AGENT_TRACE_STAGES.tool, 9],
  [AGENT_TRACE_STAGES.loopGuard, 9],
  [PREFILL_TRACE_STAGES.stripped, 10],
  [PREFILL_TRACE_STAGES.kept, 10],
  [AGENT_TRACE_STAGES.finalized, 10],
  [AGENT_TRACE_STAGES.saved, 11],
])

/**
 * Which step of the turn table a trace event belongs to (`undefined` for warnings and events
 * outside the table). Resumption's one stage is split by its action (`inject`/`skip` is step 3,
 * `capture` step 11). Every stage name comes from its package's exported constants.
 */
export function stepOf(event: Pick<TraceEvent, 'stage' | 'data'>): number | undefined {
  if (event.stage === RESUMPTION_TRACE_STAGES.resumption) {
    return typeof event.data.action === 'string' && event.data.action.startsWith('capture') ? 11 : 3
  }
  return BY_STAGE.get(event.stage)
}
