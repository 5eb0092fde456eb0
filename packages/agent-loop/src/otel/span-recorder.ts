import { CORE_TRACE_STAGES } from '@contextkit/core'
// types only: this entry never loads @opentelemetry/api (see otel-context.ts)
import type { Attributes, Context, Span, SpanOptions, Tracer } from '@opentelemetry/api'
import type { TraceScope } from '../events/run-trace.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { GEN_AI, OPERATION, serverAttributes, usageAttributes } from './attributes.js'
import { activeContext, contextWithSpan, SPAN_KIND, STATUS_ERROR } from './otel-context.js'

/** What the recorder reads of `otelTrace`'s options. */
export interface SpanRecorderOptions {
  recordContent?: boolean
  parent?: Context
  providerName?: string
  agentName?: string
}

/** An open span and the context its children start in. */
interface OpenSpan {
  span: Span
  ctx: Context
}

/** The state of the run being traced. */
interface RunSpans extends OpenSpan {
  /** `gen_ai.provider.name`: the option, else what the provider says of itself. */
  providerName: string | undefined
  /** `gen_ai.conversation.id`: the session id. */
  conversationId: string | undefined
  /** Open model-call spans by `<phase>:<step>`. */
  calls: Map<string, OpenSpan & { attempts: number }>
  /** Tool spans open while their `execute` runs, by call id. */
  tools: Map<string, Span>
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number }
}

type Data = Record<string, unknown>

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const callKey = (data: Data): string => `${str(data.phase) ?? 'agent'}:${num(data.step)}`

/**
 * Turns the loop's records into spans for one run at a time, each started when its work starts:
 * the run span at `agent:run-start`, a model call's at its `agent:request`, a tool call's when its
 * `execute` begins (its scope); {@link SpanRecorder.inScope} makes the scope's span the active
 * context while its work runs, so spans the work starts itself nest under it.
 */
export class SpanRecorder {
  #run: RunSpans | undefined
  readonly #tracer: Tracer
  readonly #options: SpanRecorderOptions

  constructor(tracer: Tracer, options: SpanRecorderOptions) {
    this.#tracer = tracer
    this.#options = options
  }

  /** What each stage does (other stages are ignored). */
  readonly #handlers: Readonly<Record<string, (data: Data) => void>> = {
    [AGENT_TRACE_STAGES.runStart]: (data) => this.#start(data),
    [AGENT_TRACE_STAGES.request]: (data) => this.#request(data),
    [AGENT_TRACE_STAGES.retry]: (data) => this.#retry(data),
    [AGENT_TRACE_STAGES.response]: (data) => this.#response(data),
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

  record(stage: string, data: Data): void {
    if (Object.hasOwn(this.#handlers, stage)) this.#handlers[stage]?.(data)
  }

  /**
   * The context `scope`'s work runs in: its span's (a tool's span starts here), or `undefined`
   * when the scope has no open span (the work then runs in the context it is in).
   */
  scopeContext(scope: TraceScope): Context | undefined {
    const run = this.#run
    if (!run) return undefined
    if (scope.kind === 'run') return run.ctx
    if (scope.kind === 'call') return run.calls.get(callKey(scope))?.ctx
    const span = this.#startTool(run, scope)
    run.tools.set(scope.id, span)
    return contextWithSpan(span, run.ctx)
  }

  #start(data: Data): void {
    if (this.#run) this.#close({ 'contextkit.stop_reason': 'superseded' })
    const { agentName } = this.#options
    const providerName = this.#options.providerName ?? str(data.system)
    const attributes: Attributes = {
      [GEN_AI.operation]: OPERATION.invokeAgent,
      [GEN_AI.providerName]: providerName,
      [GEN_AI.requestModel]: str(data.model),
      [GEN_AI.conversationId]: str(data.sessionId),
      [GEN_AI.agentName]: agentName,
      'contextkit.run.id': str(data.runId),
      'contextkit.history_messages': num(data.historyMessages),
    }
    const parent = this.#options.parent ?? activeContext()
    const name = agentName ? `${OPERATION.invokeAgent} ${agentName}` : OPERATION.invokeAgent
    const options: SpanOptions = { kind: SPAN_KIND.internal, attributes }
    const span = this.#tracer.startSpan(name, options, parent)
    this.#run = {
      span,
      ctx: contextWithSpan(span, parent),
      providerName,
      conversationId: str(data.sessionId),
      calls: new Map(),
      tools: new Map(),
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    }
  }

  /** A model call's request: opens its span, or counts a retry (a `recover` hook's) on the open one. */
  #request(data: Data): void {
    const run = this.#run
    if (!run) return
    const open = run.calls.get(callKey(data))
    if (open) {
      open.attempts++
      open.span.addEvent('contextkit.retry', { attempt: open.attempts })
      return
    }
    const model = str(data.model)
    const attributes: Attributes = {
      [GEN_AI.operation]: OPERATION.chat,
      [GEN_AI.providerName]: this.#options.providerName ?? str(data.system) ?? run.providerName,
      [GEN_AI.requestModel]: model,
      [GEN_AI.requestMaxTokens]: typeof data.maxTokens === 'number' ? data.maxTokens : undefined,
      [GEN_AI.conversationId]: run.conversationId,
      ...serverAttributes(str(data.baseUrl)),
      'contextkit.step': num(data.step),
      'contextkit.phase': str(data.phase) ?? 'agent',
      'contextkit.formatter': str(data.formatter),
    }
    const name = model ? `${OPERATION.chat} ${model}` : OPERATION.chat
    const span = this.#tracer.startSpan(name, { kind: SPAN_KIND.client, attributes }, run.ctx)
    run.calls.set(callKey(data), { span, ctx: contextWithSpan(span, run.ctx), attempts: 1 })
  }

  /** The provider sends a call again: one `contextkit.retry` event per retry. */
  #retry(data: Data): void {
    const call = this.#run?.calls.get(callKey(data))
    if (!call) return
    call.attempts++
    call.span.addEvent('contextkit.retry', {
      attempt: call.attempts,
      'contextkit.retry.delay_ms': num(data.delayMs),
      [GEN_AI.errorType]: str(data.code) ?? 'error',
      ...(typeof data.status === 'number' ? { 'http.response.status_code': data.status } : {}),
    })
  }

  /** The reply's id and the model that served it. */
  #response(data: Data): void {
    const call = this.#run?.calls.get(callKey(data))
    call?.span.setAttributes({
      [GEN_AI.responseId]: str(data.id),
      [GEN_AI.responseModel]: str(data.model),
    })
  }

  #reply(data: Data): void {
    const run = this.#run
    if (!run) return
    const usage = (typeof data.usage === 'object' && data.usage !== null ? data.usage : {}) as Data
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

  #callEvent(data: Data, name: string, attributes: Attributes): void {
    const run = this.#run
    if (!run) return
    const step = num(data.step)
    const call = run.calls.get(`agent:${step}`) ?? run.calls.get(`plan:${step}`)
    call?.span.addEvent(name, attributes)
  }

  #runEvent(stage: string, data: Data): void {
    const attributes: Attributes = {}
    for (const [k, v] of Object.entries(data)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        attributes[k] = v
      }
    }
    this.#run?.span.addEvent(stage, attributes)
  }

  /** A tool call's span, started as its `execute` starts. */
  #startTool(
    run: RunSpans,
    scope: Extract<TraceScope, { kind: 'tool' }>,
    startTime?: number,
  ): Span {
    const attributes: Attributes = {
      [GEN_AI.operation]: OPERATION.executeTool,
      [GEN_AI.toolName]: scope.tool,
      [GEN_AI.toolCallId]: scope.id,
      [GEN_AI.toolType]: 'function',
      [GEN_AI.toolDescription]: scope.description || undefined,
      'contextkit.step': scope.step,
      ...(this.#options.recordContent ? { [GEN_AI.toolCallArguments]: jsonText(scope.input) } : {}),
    }
    const options: SpanOptions = {
      kind: SPAN_KIND.internal,
      attributes,
      ...(startTime === undefined ? {} : { startTime }),
    }
    return this.#tracer.startSpan(`${OPERATION.executeTool} ${scope.tool}`, options, run.ctx)
  }

  /**
   * A finished tool call: ends the span its scope opened, or (a call that never ran: refused,
   * or a trace without scopes) makes one from its start (its duration before now) to now.
   */
  #tool(data: Data): void {
    const run = this.#run
    if (!run) return
    const id = str(data.id) ?? ''
    const open = run.tools.get(id)
    run.tools.delete(id)
    const end = Date.now()
    const span =
      open ??
      this.#startTool(
        run,
        {
          kind: 'tool',
          step: num(data.step),
          id,
          tool: str(data.tool) ?? 'unknown',
          description: '',
          input: (typeof data.input === 'object' && data.input !== null ? data.input : {}) as Data,
        },
        end - num(data.durationMs),
      )
    if (data.isError === true) {
      const code = str(data.code) ?? 'tool_error'
      failSpan(span, code, str(data.error) ?? `the tool call failed (${code})`)
    }
    span.end(open ? undefined : end)
  }

  #stop(data: Data): void {
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
    for (const span of run.tools.values()) span.end()
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

/** Mark `span` failed: status, `error.type`, and an `exception` event. */
function failSpan(span: Span, code: string, message: string): void {
  span.setAttribute(GEN_AI.errorType, code)
  span.recordException({ name: code, message })
  span.setStatus({ code: STATUS_ERROR, message })
}
