import {
  type AssistantMessage,
  CORE_TRACE_STAGES,
  ContextkitError,
  createRunInfo,
  createTokenCounter,
  createTurnContext,
  describeError,
  emptyUsage,
  type FinalizeInfo,
  type Message,
  type ModelPricing,
  type RunInfo,
  runFinalize,
  runPrepare,
  type ToolCallBlock,
  type TurnContext,
  textOf,
  type Usage,
} from '@contextkit/core'
import { RunTokenCounter } from './budget.js'
import { toolDefinition } from './define-tool.js'
import { AgentAbortedError, AgentLoopError } from './errors.js'
import {
  type AgentCallUsage,
  type AgentEvent,
  type AgentResult,
  type AgentRunUsage,
  type AgentStopReason,
  type AgentWarning,
  type EventChannel,
  withCacheHitRate,
} from './events.js'
import { LoopGuard } from './loop-guard.js'
import { type CallContext, callModel } from './model-call.js'
import type { ResolvedOptions } from './options.js'
import { planSection, runPlanPhase } from './plan.js'
import { safeRecord, warningTrace } from './run-trace.js'
import { SessionRun } from './session-run.js'
import { firstStop, type StopState } from './stop-conditions.js'
import { runToolStep } from './tool-step.js'
import { AGENT_TRACE_STAGES } from './trace-stages.js'

const NATURAL_STOPS = new Set<string>([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'refusal',
  'pause_turn',
  'model_context_window_exceeded',
])

function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  }
}

function runUsage(
  total: Usage,
  calls: readonly AgentCallUsage[],
  pricing: ModelPricing | undefined,
): AgentRunUsage {
  return { ...withCacheHitRate(total, pricing), calls: [...calls] }
}

/** What is left of an interrupted reply: its text and signed thinking (no call of it ran). */
function interrupted(reply: AssistantMessage): AssistantMessage {
  const content = reply.content.filter(
    (b) =>
      b.type === 'text' ||
      b.type === 'redacted_thinking' ||
      (b.type === 'thinking' && b.signature !== undefined),
  )
  return { ...reply, content }
}

/** One run of the agent loop; {@link AgentLoop.run} never rejects. */
export class AgentLoop {
  readonly #o: ResolvedOptions
  readonly #signal: AbortSignal
  readonly #channel: EventChannel<AgentEvent>
  readonly #runId: string
  readonly #warnings: AgentWarning[] = []
  readonly #saved: Message[] = []
  readonly #produced: Message[] = []
  readonly #toolCalls: ToolCallBlock[] = []
  #usage: Usage = emptyUsage()
  readonly #calls: AgentCallUsage[] = []
  #turns = 0
  #pendingUser: Message[] = []
  #session: SessionRun | undefined
  #run!: RunInfo

  constructor(
    options: ResolvedOptions,
    signal: AbortSignal,
    channel: EventChannel<AgentEvent>,
    runId: string,
  ) {
    this.#o = options
    this.#signal = signal
    this.#channel = channel
    this.#runId = runId
  }

  #emit = (event: AgentEvent): void => this.#channel.push(event)

  #warn = (warning: AgentWarning): void => {
    this.#warnings.push(warning)
    this.#emit({ type: 'warning', warning })
    safeRecord(this.#o.raw.trace, CORE_TRACE_STAGES.warning, { ...warning })
  }

  async run(): Promise<AgentResult> {
    const raw = this.#o.raw
    this.#run = createRunInfo({
      runId: this.#runId,
      trace: warningTrace(this.#o.raw.trace, (warning) => {
        this.#warnings.push(warning)
        this.#emit({ type: 'warning', warning })
      }),
      signal: this.#signal,
      ...(raw.workspace === undefined ? {} : { workspace: raw.workspace }),
      ...(raw.session === undefined ? {} : { sessionId: raw.session.id }),
    })
    const counter = new RunTokenCounter(
      raw.tokenCounter ?? createTokenCounter({ model: this.#o.model }),
    )
    let started = false
    try {
      let history: Message[] = []
      let loadWarnings: AgentWarning[] = []
      if (raw.session) {
        const opened = await SessionRun.open(raw.session, {
          tokens: Math.floor(this.#o.model.contextWindow / 2),
          counter: counter.counter,
        })
        this.#session = opened.session
        history = opened.history
        loadWarnings = opened.warnings
        this.#run.trace.record(AGENT_TRACE_STAGES.sessionLoaded, {
          sessionId: raw.session.id,
          messages: opened.stored,
          kept: history.length,
          warnings: opened.warnings.length,
        })
      }
      this.#start(history.length)
      started = true
      for (const w of loadWarnings) this.#warn(w)
      this.#pendingUser = [...raw.messages]
      return await this.#loop(history, counter)
    } catch (error) {
      if (!started) this.#start(0)
      const failure = ContextkitError.isInstance(error)
        ? error
        : new AgentLoopError(`The run failed: ${describeError(error)}`, { cause: error })
      return this.#finish(this.#signal.aborted ? 'aborted' : 'error', failure)
    }
  }

  #start(historyMessages: number): void {
    const raw = this.#o.raw
    const data = {
      runId: this.#runId,
      model: this.#o.model.id,
      ...(raw.session ? { sessionId: raw.session.id } : {}),
      historyMessages,
    }
    this.#run.trace.record(AGENT_TRACE_STAGES.runStart, data)
    this.#emit({ type: 'run-start', ...data })
  }

  async #loop(history: Message[], counter: RunTokenCounter): Promise<AgentResult> {
    const o = this.#o
    const ctx: CallContext = {
      provider: o.raw.provider,
      formatter: o.raw.formatter,
      middleware: o.raw.middleware ?? [],
      run: this.#run,
      signal: this.#signal,
      counter,
      budgetTokens: o.raw.budgetTokens,
      emit: this.#emit,
      warn: this.#warn,
      addUsage: (usage, turn, phase) => {
        this.#usage = addUsage(this.#usage, usage)
        this.#calls.push({ ...withCacheHitRate(usage, o.model.pricing), turn, phase })
      },
      cache: { mode: o.cache, warnedDropped: false },
    }
    let turn = await runPrepare(
      ctx.middleware,
      createTurnContext({
        model: o.model,
        system: o.system,
        messages: [...history, ...o.raw.messages],
        tools: [...o.tools.values()].map(toolDefinition),
        vars: { ...(o.raw.vars ?? {}) },
        ...(o.raw.thinking ? { thinking: o.raw.thinking } : {}),
      }),
      this.#run,
    )
    this.#run.trace.record(AGENT_TRACE_STAGES.prepared, {
      system: turn.system.map((s) => s.id),
      userSections: turn.userSections.map((s) => s.id),
      prefill: turn.prefill,
      tools: turn.tools.map((t) => t.name),
    })
    if (o.analyze) {
      const { outcome, calls } = await runPlanPhase(ctx, turn, o.analyze)
      this.#turns += calls
      if (outcome.kind === 'aborted') return this.#finish('aborted', this.#abortError())
      if (outcome.kind === 'failed') return this.#finish('error', outcome.error)
      if (outcome.kind === 'clarify') return this.#clarify(turn, outcome.question, outcome.context)
      if (outcome.kind === 'proceed') {
        turn = { ...turn, userSections: [planSection(outcome.plan), ...turn.userSections] }
        this.#plan = outcome.plan
      }
    }
    const guard = o.raw.loopGuard === false ? undefined : new LoopGuard(o.raw.loopGuard)
    for (let step = 1; ; step++) {
      this.#emit({ type: 'turn-start', turn: step, phase: 'agent' })
      const result = await callModel(ctx, {
        turn,
        extra: this.#produced,
        withPrefill: step === 1,
        maxTokens: o.maxTokens,
        number: step,
        phase: 'agent',
      })
      this.#turns++
      turn = result.turn
      this.#emit({
        type: 'usage',
        turn: step,
        usage: withCacheHitRate(result.reply.usage, o.model.pricing),
        total: withCacheHitRate(this.#usage, o.model.pricing),
      })
      this.#run.trace.record(AGENT_TRACE_STAGES.reply, {
        turn: step,
        stopReason: result.reply.stopReason,
        blocks: result.reply.content.map((b) => b.type),
        toolCalls: result.reply.content.flatMap((b) => (b.type === 'tool_call' ? [b.name] : [])),
        usage: withCacheHitRate(result.reply.usage, o.model.pricing),
      })
      if (result.kind !== 'done') {
        // nothing of an interrupted reply ran: it is finalized and reported, never saved, so the
        // session holds whole steps only (and an abort mid-stream needs no write)
        await this.#endStep(
          turn,
          interrupted(result.reply),
          undefined,
          { final: true, step },
          false,
        )
        return result.kind === 'aborted'
          ? this.#finish('aborted', this.#abortError())
          : this.#finish('error', result.error)
      }
      const reply = result.reply
      const calls = reply.content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
      if (calls.length === 0) {
        await this.#endStep(turn, reply, undefined, { final: true, step }, true)
        return this.#finish(
          NATURAL_STOPS.has(reply.stopReason) ? (reply.stopReason as AgentStopReason) : 'end_turn',
        )
      }
      const { results, verdict } = await runToolStep({
        calls,
        invalidCalls: result.invalidCalls,
        guard,
        tools: o.tools,
        concurrency: o.concurrency,
        signal: this.#signal,
        run: this.#run,
        turn: step,
        emit: this.#emit,
      })
      this.#toolCalls.push(...calls)
      this.#produced.push(reply, results)
      const state: StopState = {
        turns: step,
        lastReply: reply,
        lastToolCalls: calls,
        toolCalls: this.#toolCalls,
        messages: [...this.#saved, reply, results],
        usage: this.#usage,
      }
      let stop: AgentStopReason | undefined
      let failure: ContextkitError | undefined
      try {
        stop = this.#signal.aborted
          ? 'aborted'
          : verdict.stop
            ? 'loop_detected'
            : (firstStop(o.conditions, state)?.stopReason as AgentStopReason | undefined)
      } catch (error) {
        // a custom condition threw: the step still ends whole, then the run stops
        stop = 'error'
        failure = new AgentLoopError(`A stop condition threw: ${describeError(error)}`, {
          cause: error,
        })
      }
      await this.#endStep(turn, reply, results, { final: stop !== undefined, step }, true)
      if (stop) {
        return this.#finish(stop, failure ?? (stop === 'aborted' ? this.#abortError() : undefined))
      }
    }
  }

  #plan: string | undefined

  /** Finalize a reply, record it, save the step (with the pending user turn) as one batch. */
  async #endStep(
    turn: TurnContext,
    reply: AssistantMessage,
    results: Message | undefined,
    info: FinalizeInfo,
    keep: boolean,
  ): Promise<void> {
    const message = await runFinalize(this.#o.raw.middleware ?? [], reply, turn, this.#run, info)
    this.#run.trace.record(AGENT_TRACE_STAGES.finalized, { turn: info.step, ...info })
    this.#emit({
      type: 'turn-end',
      turn: info.step,
      phase: 'agent',
      message,
      ...(results ? { toolResults: results } : {}),
    })
    if (!keep) return
    const batch = [message, ...(results ? [results] : [])]
    this.#saved.push(...batch)
    await this.#save(batch)
  }

  async #save(batch: Message[]): Promise<void> {
    if (!this.#session) return
    const messages = [...this.#pendingUser, ...batch]
    await this.#session.append(messages)
    this.#pendingUser = []
    this.#run.trace.record(AGENT_TRACE_STAGES.saved, {
      sessionId: this.#session.options.id,
      appended: messages.length,
      roles: messages.map((m) => m.role),
    })
  }

  async #clarify(turn: TurnContext, question: string, context: string): Promise<AgentResult> {
    const reply: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: question }],
      stopReason: 'end_turn',
      usage: emptyUsage(),
    }
    await this.#endStep(turn, reply, undefined, { final: true, step: 1 }, true)
    return this.#finish('clarify', undefined, { question, context })
  }

  #abortError(): ContextkitError | undefined {
    const reason: unknown = this.#signal.reason
    if (ContextkitError.isInstance(reason)) return reason
    if (reason === undefined || (reason instanceof Error && reason.name === 'AbortError'))
      return undefined
    return new AgentAbortedError(`The run was aborted: ${describeError(reason)}`, { cause: reason })
  }

  #finish(
    stopReason: AgentStopReason,
    error?: ContextkitError,
    clarify?: { question: string; context: string },
  ): AgentResult {
    const last = [...this.#saved].reverse().find((m) => m.role === 'assistant')
    const result: AgentResult = {
      runId: this.#runId,
      messages: [...this.#saved],
      turns: this.#turns,
      usage: runUsage(this.#usage, this.#calls, this.#o.model.pricing),
      stopReason,
      warnings: [...this.#warnings],
      text: last ? textOf(last) : '',
      ...(this.#plan === undefined ? {} : { plan: this.#plan }),
      ...(clarify ?? {}),
      ...(error ? { error } : {}),
    }
    this.#run.trace.record(AGENT_TRACE_STAGES.stop, {
      stopReason,
      turns: this.#turns,
      ...(error ? { error: describeError(error), code: error.code } : {}),
    })
    this.#emit({ type: 'run-end', result })
    return result
  }
}
