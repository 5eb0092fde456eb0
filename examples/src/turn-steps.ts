import { AGENT_TRACE_STAGES } from '@contextkit/agent-loop'
import { CONTEXT_METADATA_TRACE_STAGES } from '@contextkit/context-metadata'
import type { TraceEvent } from '@contextkit/core'
import { PREFILL_TRACE_STAGES } from '@contextkit/prefill'
import { PRELOAD_TRACE_STAGES } from '@contextkit/preload'
import { RESUMPTION_TRACE_STAGES } from '@contextkit/resumption'

/** The one stage each of preload and context-metadata records, from their exported constants. */
export const MIDDLEWARE_STAGES = {
  preload: PRELOAD_TRACE_STAGES.loaded,
  contextMetadata: CONTEXT_METADATA_TRACE_STAGES.analyzed,
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
  [RESUMPTION_TRACE_STAGES.injected, 3],
  [RESUMPTION_TRACE_STAGES.skipped, 3],
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
  [RESUMPTION_TRACE_STAGES.captured, 11],
  [RESUMPTION_TRACE_STAGES.captureSkipped, 11],
])

/**
 * Which step of the turn table a trace event belongs to (`undefined` for warnings and events
 * outside the table). Every stage name comes from its package's exported constants.
 */
export function stepOf(event: Pick<TraceEvent, 'stage' | 'data'>): number | undefined {
  return BY_STAGE.get(event.stage)
}
