import { assertOptions, CORE_TRACE_STAGES, invalidArgument, type Trace } from '@contextkit/core'
// types only: importing this entry never loads @opentelemetry/api (an optional peer), so it
// works, and requires, wherever the tracer came from
import type { Attributes, Context, Span, SpanOptions, Tracer } from '@opentelemetry/api'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { GEN_AI, OPERATION, usageAttributes } from './attributes.js'
import { contextWithSpan, SPAN_KIND, STATUS_ERROR } from './otel-context.js'

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
  /** `gen_ai.provider.name` of the model spans (e.g. `anthropic`, `openai`). Default: not set. */
  providerName?: string
  /** `gen_ai.agent.name` of the run span, also put in its name. Default: not set. */
  agentName?: string
  /** A trace that receives every record too (e.g. core's `jsonlTrace`). Default: none. */
  trace?: Trace
}

/** The state of the run being traced. */
interface RunSpans {
  span: Span
  ctx: Context
  /** Open model-call spans by `<phase>:<step>`. */
  calls: Map<string, { span: Span; attempts: number }>
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number }
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/**
 * A core `Trace` that turns the agent loop's trace records into OpenTelemetry spans, named and
 * attributed after the GenAI semantic conventions: one `invoke_agent` span per run, a `chat`
 * span per model call (one per step, retries as events on it) and an `execute_tool` span per
 * tool call, both children of the run span. Pass it as `runAgent({ trace: otelTrace(tracer) })`;
 * use one per run at a time (records carry no run id, so runs sharing one would mix). Recording
 * never throws, and nothing of the prompt or the reply is recorded unless `recordContent` is set.
 *
 * @example
 * ```ts
 * const tracer = trace.getTracer('my-agent')
 * const run = runAgent({ provider, model, messages, tools, trace: otelTrace(tracer) })
 * ```
 */
export function otelTrace(tracer: Tracer, options: OtelTraceOptions = {}): Trace {
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
  }
}

/** Turns records into spans for one run at a time. */
class SpanRecorder {
  #run: RunSpans | undefined
  readonly #tracer: Tracer
  readonly #options: OtelTraceOptions

  constructor(tracer: Tracer, options: OtelTraceOptions) {
    this.#tracer = tracer
    this.#options = options
  }

  /** What each stage does (other stages are ignored). */
  readonly #handlers: Readonly<Record<string, (data: Record<string, unknown>) => void>> = {
    [AGENT_TRACE_STAGES.runStart]: (data) => this.#start(data),
    [AGENT_TRACE_STAGES.request]: (data) => this.#request(data),
    [AGENT_TRACE_STAGES.reply]: (data) => this.#reply(data),
    [AGENT_TRACE_STAGES.plan]: (data) =>
      this.#endCall('plan:0', { 'contextkit.plan.action': str(data.action) ?? 'none' }),
    [AGENT_TRACE_STAGES.recovered]: (data) =>
      this.#callEvent(data, 'contextkit.recovered', { by: str(data.by) ?? '' }),
    [AGENT_TRACE_STAGES.tool]: (data) => this.#tool(data),
    [AGENT_TRACE_STAGES.loopGuard]: (data) => this.#runEvent(AGENT_TRACE_STAGES.loopGuard, data),
    [CORE_TRACE_STAGES.warning]: (data) => this.#runEvent(CORE_TRACE_STAGES.warning, data),
    [AGENT_TRACE_STAGES.stop]: (data) => this.#stop(data),
  }

  record(stage: string, data: Record<string, unknown>): void {
    if (Object.hasOwn(this.#handlers, stage)) this.#handlers[stage]?.(data)
  }

  #start(data: Record<string, unknown>): void {
    if (this.#run) this.#close({ 'contextkit.stop_reason': 'superseded' })
    const { agentName } = this.#options
    const attributes: Attributes = {
      [GEN_AI.operation]: OPERATION.invokeAgent,
      [GEN_AI.requestModel]: str(data.model),
      [GEN_AI.conversationId]: str(data.sessionId),
      [GEN_AI.agentName]: agentName,
      'contextkit.run.id': str(data.runId),
      'contextkit.history_messages': num(data.historyMessages),
    }
    const { parent } = this.#options
    const name = agentName ? `${OPERATION.invokeAgent} ${agentName}` : OPERATION.invokeAgent
    const options: SpanOptions = { kind: SPAN_KIND.internal, attributes }
    // without a parent, startActiveSpan starts the span in the active context, as startSpan would
    const span = parent
      ? this.#tracer.startSpan(name, options, parent)
      : this.#tracer.startActiveSpan(name, options, (s: Span) => s)
    this.#run = {
      span,
      ctx: contextWithSpan(span, parent),
      calls: new Map(),
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    }
  }

  /** A model call's request: opens its span, or counts a retry on the open one. */
  #request(data: Record<string, unknown>): void {
    const run = this.#run
    if (!run) return
    const key = `${str(data.phase) ?? 'agent'}:${num(data.step)}`
    const open = run.calls.get(key)
    if (open) {
      open.attempts++
      open.span.addEvent('contextkit.retry', { attempt: open.attempts })
      return
    }
    const model = str(data.model)
    const attributes: Attributes = {
      [GEN_AI.operation]: OPERATION.chat,
      [GEN_AI.requestModel]: model,
      [GEN_AI.providerName]: this.#options.providerName,
      'contextkit.step': num(data.step),
      'contextkit.phase': str(data.phase) ?? 'agent',
      'contextkit.formatter': str(data.formatter),
    }
    const name = model ? `${OPERATION.chat} ${model}` : OPERATION.chat
    const span = this.#tracer.startSpan(name, { kind: SPAN_KIND.client, attributes }, run.ctx)
    run.calls.set(key, { span, attempts: 1 })
  }

  #reply(data: Record<string, unknown>): void {
    const run = this.#run
    if (!run) return
    const usage = (typeof data.usage === 'object' && data.usage !== null ? data.usage : {}) as {
      [k: string]: unknown
    }
    run.usage.input += num(usage.input)
    run.usage.output += num(usage.output)
    run.usage.cacheRead += num(usage.cacheRead)
    run.usage.cacheWrite += num(usage.cacheWrite)
    const stopReason = str(data.stopReason)
    // a call that failed or was aborted stays open: the run's stop record says why, right after
    const failed = stopReason === 'error' || stopReason === 'aborted'
    this.#endCall(
      `agent:${num(data.step)}`,
      {
        ...usageAttributes(usage),
        ...(stopReason ? { [GEN_AI.finishReasons]: [stopReason] } : {}),
      },
      failed,
    )
  }

  #endCall(key: string, attributes: Attributes, keepOpen = false): void {
    const call = this.#run?.calls.get(key)
    if (!call) return
    call.span.setAttributes({ ...attributes, 'contextkit.attempts': call.attempts })
    if (keepOpen) return
    this.#run?.calls.delete(key)
    call.span.end()
  }

  #callEvent(data: Record<string, unknown>, name: string, attributes: Attributes): void {
    const run = this.#run
    if (!run) return
    const step = num(data.step)
    const call = run.calls.get(`agent:${step}`) ?? run.calls.get(`plan:${step}`)
    call?.span.addEvent(name, attributes)
  }

  #runEvent(stage: string, data: Record<string, unknown>): void {
    const attributes: Attributes = {}
    for (const [k, v] of Object.entries(data)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        attributes[k] = v
      }
    }
    this.#run?.span.addEvent(stage, attributes)
  }

  /** A finished tool call: a span from its start (its duration before now) to now. */
  #tool(data: Record<string, unknown>): void {
    const run = this.#run
    if (!run) return
    const end = Date.now()
    const tool = str(data.tool) ?? 'unknown'
    const attributes: Attributes = {
      [GEN_AI.operation]: OPERATION.executeTool,
      [GEN_AI.toolName]: tool,
      [GEN_AI.toolCallId]: str(data.id),
      [GEN_AI.toolType]: 'function',
      'contextkit.step': num(data.step),
      ...(this.#options.recordContent ? { [GEN_AI.toolCallArguments]: jsonText(data.input) } : {}),
    }
    const span = this.#tracer.startSpan(
      `${OPERATION.executeTool} ${tool}`,
      { kind: SPAN_KIND.internal, attributes, startTime: end - num(data.durationMs) },
      run.ctx,
    )
    if (data.isError === true) {
      const code = str(data.code) ?? 'tool_error'
      span.setAttribute(GEN_AI.errorType, code)
      span.setStatus({ code: STATUS_ERROR, message: `the tool call failed (${code})` })
    }
    span.end(end)
  }

  #stop(data: Record<string, unknown>): void {
    const run = this.#run
    if (!run) return
    const error = str(data.error)
    const code = str(data.code) ?? 'error'
    for (const { span } of run.calls.values()) {
      // a call still open when the run stops is the one that failed or was aborted
      if (error) failSpan(span, code, error)
      span.end()
    }
    run.calls.clear()
    if (error) failSpan(run.span, code, error)
    this.#close({
      ...usageAttributes(run.usage),
      'contextkit.stop_reason': str(data.stopReason),
      'contextkit.steps': num(data.steps),
    })
  }

  #close(attributes: Attributes): void {
    const run = this.#run
    if (!run) return
    this.#run = undefined
    for (const { span } of run.calls.values()) span.end()
    run.span.setAttributes(attributes)
    run.span.end()
  }
}

/** `value` as JSON text (`''` when it has none). */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return ''
  }
}

/** Mark `span` failed: status, `error.type`, and an exception event. */
function failSpan(span: Span, code: string, message: string): void {
  span.setAttribute(GEN_AI.errorType, code)
  span.recordException({ name: code, message })
  span.setStatus({ code: STATUS_ERROR, message })
}
