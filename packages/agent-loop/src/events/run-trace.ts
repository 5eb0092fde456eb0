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
 * middleware warnings become the run's warning events. It runs work in `inner`'s scopes when
 * `inner` has them ({@link ScopedTrace}).
 */
export function warningTrace(
  inner: Trace | undefined,
  onWarning: (warning: AgentWarning) => void,
): Trace {
  const scoped: Pick<ScopedTrace, 'inScope'> | undefined = isScopedTrace(inner)
    ? { inScope: (scope, work) => inTraceScope(inner, scope, work) }
    : undefined
  return {
    ...scoped,
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

/**
 * A piece of a run's work that a trace may wrap: the whole run (from `agent:run-start` to
 * `agent:stop`), one model call (`phase` and `step`, from its `agent:request` record to its reply)
 * or one tool call's `execute` (what its span needs, given before it runs: the `agent:tool`
 * record comes when it has returned).
 */
export type TraceScope =
  | { kind: 'run' }
  | { kind: 'call'; phase: string; step: number }
  | {
      kind: 'tool'
      step: number
      id: string
      tool: string
      description: string
      input: Record<string, unknown>
    }

/**
 * A trace that also runs work inside the scope its records opened, so what the work starts
 * itself (an HTTP call, a query) is seen inside it: `@contextkit/agent-loop/otel`'s `otelTrace`
 * makes the scope's span the active OpenTelemetry context while `work` runs. The loop calls
 * `inScope` when the trace it was given has one; a trace that wraps another should pass it on.
 */
export interface ScopedTrace extends Trace {
  /** Run `work` inside `scope` and return what it returns (a promise stays a promise). */
  inScope<T>(scope: TraceScope, work: () => T): T
}

/** Whether `trace` runs work in scopes ({@link ScopedTrace}). */
export function isScopedTrace(trace: Trace | undefined): trace is ScopedTrace {
  return typeof (trace as Partial<ScopedTrace> | undefined)?.inScope === 'function'
}

/**
 * Run `work` inside `scope` of `trace` when it is a {@link ScopedTrace}, else just run it. A scope
 * that fails to open never stops the work: it then runs outside it.
 */
export function inTraceScope<T>(trace: Trace | undefined, scope: TraceScope, work: () => T): T {
  if (!isScopedTrace(trace)) return work()
  const state: { ran: boolean; threw: boolean; value?: T; error?: unknown } = {
    ran: false,
    threw: false,
  }
  try {
    return trace.inScope(scope, () => {
      state.ran = true
      try {
        state.value = work()
        return state.value
      } catch (error) {
        state.threw = true
        state.error = error
        throw error
      }
    })
  } catch {
    // the trace's own failure never stops the work nor replaces its outcome
    if (!state.ran) return work()
    if (state.threw) throw state.error
    return state.value as T
  }
}
