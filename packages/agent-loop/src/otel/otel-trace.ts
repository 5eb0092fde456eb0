import { assertOptions, invalidArgument, type Trace } from '@contextkit/core'
// types only: importing this entry never loads @opentelemetry/api (an optional peer), so it
// works, and requires, wherever the tracer came from
import type { Context, Tracer } from '@opentelemetry/api'
import { inTraceScope, type ScopedTrace } from '../events/run-trace.js'
import { withContext } from './otel-context.js'
import { SpanRecorder } from './span-recorder.js'

/** What {@link otelTrace} takes besides the tracer. */
export interface OtelTraceOptions {
  /**
   * Record content on spans: the model's tool-call arguments as `gen_ai.tool.call.arguments`
   * (JSON). Content may hold personal or secret data, so it is off by default.
   */
  recordContent?: boolean
  /**
   * The context the run span starts in. Default: the active context when the run starts (so a
   * run started inside `tracer.startActiveSpan(...)` nests under that span).
   */
  parent?: Context
  /**
   * `gen_ai.provider.name` of the run and model spans (e.g. `anthropic`, `openai`). Default: what
   * the provider says of its API (`ModelProvider.system`: `anthropic` for `anthropicProvider`,
   * `openai` for the OpenAI-compatible ones, the AI SDK model's provider for `aiSdkProvider`).
   */
  providerName?: string
  /** `gen_ai.agent.name` of the run span, also put in its name. Default: not set. */
  agentName?: string
  /** A trace that receives every record too (e.g. core's `jsonlTrace`). Default: none. */
  trace?: Trace
}

/**
 * A core `Trace` that turns the agent loop's trace records into OpenTelemetry spans, named and
 * attributed after the GenAI semantic conventions: one `invoke_agent` span per run, a `chat`
 * span per model call (one per step, retries as events on it) and an `execute_tool` span per
 * tool call, both children of the run span. Each span starts when its work starts and is the
 * active context while it runs (the loop runs its work in the trace's scopes, `ScopedTrace`), so
 * what a tool or the provider starts itself (an HTTP request, a query) nests under it. Pass it as `runAgent({ trace: otelTrace(tracer) })`;
 * use one per run at a time (records carry no run id, so runs sharing one would mix). Recording
 * never throws, and nothing of the prompt or the reply is recorded unless `recordContent` is set.
 *
 * @example
 * ```ts
 * const tracer = trace.getTracer('my-agent')
 * const run = runAgent({ provider, model, messages, tools, trace: otelTrace(tracer) })
 * ```
 */
export function otelTrace(tracer: Tracer, options: OtelTraceOptions = {}): ScopedTrace {
  const t = tracer as Partial<Tracer> | null
  if (typeof t?.startSpan !== 'function' || typeof t.startActiveSpan !== 'function') {
    invalidArgument('otelTrace', 'tracer', 'an OpenTelemetry Tracer (trace.getTracer(…))', tracer)
  }
  assertOptions(options, 'otelTrace', 'options')
  const recorder = new SpanRecorder(tracer, options)
  return {
    record(stage, data = {}) {
      try {
        options.trace?.record(stage, data)
      } catch {
        // the inner trace's failure is not ours to report
      }
      try {
        recorder.record(stage, data)
      } catch {
        // recording never throws
      }
    },
    inScope(scope, work) {
      let ctx: Context | undefined
      try {
        ctx = recorder.scopeContext(scope)
      } catch {
        // a scope that cannot open leaves the work where it is
      }
      const inner = () => inTraceScope(options.trace, scope, work)
      return ctx ? withContext(ctx, inner) : inner()
    },
  }
}
