import type { Trace } from '@contextkit/core'

/** A trace that records every event into each of `traces`, in order. Recording never throws. */
export function teeTrace(...traces: readonly Trace[]): Trace {
  return {
    record(stage, data) {
      for (const trace of traces) trace.record(stage, data)
    },
  }
}
