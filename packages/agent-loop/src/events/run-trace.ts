import { CORE_TRACE_STAGES, describeError, type Trace } from '@contextkit/core'
import type { AgentWarning } from './events.js'

/** Record into `trace` (when there is one) without ever throwing. */
export function safeRecord(
  trace: Trace | undefined,
  stage: string,
  data: Record<string, unknown>,
): void {
  try {
    trace?.record(stage, data)
  } catch {
    // recording never throws
  }
}

/**
 * The trace a run gives its middleware: everything goes to `inner` (the caller's trace, if any),
 * and a core `warning` record (what `recordWarning` writes) is also handed to `onWarning`, so
 * middleware warnings become the run's warning events.
 */
export function warningTrace(
  inner: Trace | undefined,
  onWarning: (warning: AgentWarning) => void,
): Trace {
  return {
    record(stage, data = {}) {
      safeRecord(inner, stage, data)
      if (stage !== CORE_TRACE_STAGES.warning) return
      onWarning({
        code: typeof data.code === 'string' ? data.code : 'unexpected',
        message: typeof data.message === 'string' ? data.message : describeError(data),
        source: typeof data.source === 'string' ? data.source : 'middleware',
      })
    },
  }
}
