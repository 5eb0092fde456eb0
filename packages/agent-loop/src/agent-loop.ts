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
  type RunInfo,
  runFinalize,
  runPrepare,
  type ToolCallBlock,
  type TurnContext,
  textOf,
  type Usage,
} from '@contextkit/core'
import { RunTokenCounter } from './budget.js'
import { Compactor } from './compaction/compactor.js'
import { ToolResultClipper } from './compaction/tool-result-clip.js'
import { toolDefinition } from './define-tool.js'
import { AgentLoopError, abortError } from './errors.js'
import {
  type AgentCallUsage,
  type AgentEvent,
  type AgentResult,
  type AgentWarning,
  type EventChannel,
  type PendingApproval,
  withCacheHitRate,
} from './events.js'
import { type GatedTools, runGatedTools } from './gated-tools.js'
import { LoopGuard, type LoopGuardVerdict } from './loop-guard.js'
import { type CallContext, type CallResult, type CallSpec, callModel } from './model-call.js'
import type { ResolvedOptions } from './options.js'
import { runOutputPhase } from './output/final-output.js'
import type { OutputSpec } from './output/output-schema.js'
import { planSection, runPlanPhase } from './plan.js'
import { beginRun, type OpenedSession } from './run-begin.js'
import { safeRecord, warningTrace } from './run-trace.js'
import { addUsage, interruptedReply, runUsage } from './run-usage.js'
import { type ApprovalDraft, SessionRun } from './session-run.js'
import { refuseNotOffered, StepControl, withChoice } from './step-control.js'
import { checkStopConditions } from './stop-conditions.js'
import { type AgentStopReason, replyStopReason } from './stop-reasons.js'
import { AGENT_TRACE_STAGES } from './trace-stages.js'

/** How a step ended: the turn to go on with, or the run's end. */
type StepOutcome = { turn: TurnContext } | { end: AgentResult }

/**
 * One run of the agent loop; {@link AgentLoop.run} never rejects. A run is: open the session,
 * prepare the turn (middleware), the plan phase when asked, then steps until a stop. A step is
 * one model call ({@link AgentLoop.#call}), the reply finalized and saved before its tools run,
 * the tools and their results saved, and the stop decision.
 */
export class AgentLoop {
  readonly #o: ResolvedOptions
  readonly #signal: AbortSignal
  readonly #channel: EventChannel<AgentEvent>
  readonly #runId: string
  readonly #warnings: AgentWarning[] = []
  /** The run's new messages as saved (finalized replies and tool results). */
  readonly #saved: Message[] = []
  /** The run's new messages as the model sent and sees them (the next call's `extra`). */
  readonly #sent: Message[] = []
  readonly #toolCalls: ToolCallBlock[] = []
  readonly #calls: AgentCallUsage[] = []
  #usage: Usage = emptyUsage()
  #steps = 0
  #session: SessionRun | undefined
  #plan: string | undefined
  #run!: RunInfo
  /** Keeps requests inside the window (`compaction`); none when compaction is off. */
  readonly #compactor: Compactor | undefined
  /** `prepareStep` (the option's and the middleware's); none when nothing prepares steps. */
  readonly #control: StepControl | undefined

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
    this.#compactor = options.compaction
      ? new Compactor(options.compaction, options.provider)
      : undefined
    this.#control = StepControl.create(options)
  }

  #emit = (event: AgentEvent): void => this.#channel.push(event)

  /** Wait for the event readers when the slowest is `capacity` events behind; else go on. */
  #backpressure = (): Promise<void> | undefined =>
    this.#channel.desiredSize > 0 ? undefined : this.#channel.ready()

  #warn = (warning: AgentWarning): void => {
    this.#warnings.push(warning)
    this.#emit({ type: 'warning', warning })
    safeRecord(this.#o.trace, CORE_TRACE_STAGES.warning, { ...warning })
  }

  /** Run to a stop; every failure becomes the result's `error`, never a rejection. */
  async run(): Promise<AgentResult> {
    const o = this.#o
    this.#run = createRunInfo({
      runId: this.#runId,
      trace: warningTrace(o.trace, (warning) => {
        this.#warnings.push(warning)
        this.#emit({ type: 'warning', warning })
      }),
      signal: this.#signal,
      ...(o.workspace === undefined ? {} : { workspace: o.workspace }),
      ...(o.session === undefined ? {} : { sessionId: o.session.id }),
    })
    const counter = new RunTokenCounter(o.tokenCounter ?? createTokenCounter({ model: o.model }))
    let started = false
    try {
      const { opened, warnings } = await this.#openSession(counter)
      this.#start(opened?.messages.length ?? 0)
      started = true
      for (const w of warnings) this.#warn(w)
      const begun = await beginRun({
        options: o,
        opened,
        run: this.#run,
        signal: this.#signal,
        emit: this.#emit,
        warn: this.#warn,
        save: (messages, approvals, input) => this.#save(messages, approvals, input),
      })
      if ('stop' in begun) {
        return this.#finish(
          begun.stop,
          undefined,
          'pending' in begun ? { pending: begun.pending } : undefined,
        )
      }
      return await this.#runSteps(this.#callContext(counter), begun.history)
    } catch (error) {
      if (!started) this.#start(0)
      const failure = ContextkitError.isInstance(error)
        ? error
        : new AgentLoopError(`The run failed: ${describeError(error)}`, { cause: error })
      return this.#finish(this.#signal.aborted ? 'aborted' : 'error', failure)
    }
  }

  /** Load the session's log when the run has one: its messages and its last run's state. */
  async #openSession(
    counter: RunTokenCounter,
  ): Promise<{ opened: OpenedSession | undefined; warnings: AgentWarning[] }> {
    const options = this.#o.session
    if (!options) return { opened: undefined, warnings: [] }
    const { warnings, ...opened } = await SessionRun.open(options, {
      tokens: Math.floor(this.#o.model.contextWindow / 2),
      counter: counter.counter,
    })
    this.#session = opened.session
    this.#run.trace.record(AGENT_TRACE_STAGES.sessionLoaded, {
      sessionId: options.id,
      messages: opened.stored,
      state: opened.state.kind,
      warnings: warnings.length,
    })
    return { opened, warnings }
  }

  #start(historyMessages: number): void {
    const data = {
      runId: this.#runId,
      model: this.#o.model.id,
      ...(this.#o.session ? { sessionId: this.#o.session.id } : {}),
      historyMessages,
    }
    this.#run.trace.record(AGENT_TRACE_STAGES.runStart, data)
    this.#emit({ type: 'run-start', ...data })
  }

  /** What every model call of the run shares. */
  #callContext(counter: RunTokenCounter): CallContext {
    const o = this.#o
    return {
      provider: o.provider,
      formatter: o.formatter,
      middleware: o.middleware,
      run: this.#run,
      signal: this.#signal,
      counter,
      budgetTokens: o.budgetTokens,
      emit: this.#emit,
      warn: this.#warn,
      backpressure: this.#backpressure,
      addUsage: (usage, step, phase) => {
        this.#usage = addUsage(this.#usage, usage)
        this.#calls.push({ ...withCacheHitRate(usage, o.model.pricing), step, phase })
      },
      cache: { mode: o.cache, warnedDropped: false },
      clip: new ToolResultClipper(o.toolResultMaxTokens, counter.asCounter()),
    }
  }

  /** Prepare the turn, run the plan phase when asked, then steps until one ends the run. */
  async #runSteps(ctx: CallContext, history: Message[]): Promise<AgentResult> {
    const prepared = await this.#prepare(ctx, history)
    const planned = this.#o.plan ? await this.#planPhase(ctx, prepared) : { turn: prepared }
    if ('end' in planned) return planned.end
    let turn = planned.turn
    const guard = this.#o.loopGuard === false ? undefined : new LoopGuard(this.#o.loopGuard)
    for (let step = 1; ; step++) {
      const outcome = await this.#step(ctx, turn, step, guard)
      if ('end' in outcome) return outcome.end
      turn = outcome.turn
    }
  }

  /** Middleware `prepare` over the history plus the new messages. */
  async #prepare(ctx: CallContext, history: Message[]): Promise<TurnContext> {
    const o = this.#o
    const turn = await runPrepare(
      ctx.middleware,
      createTurnContext({
        model: o.model,
        system: o.system,
        messages: [...history, ...o.messages],
        tools: [...o.tools.values()].map(toolDefinition),
        vars: { ...o.vars },
        ...(o.thinking ? { thinking: o.thinking } : {}),
      }),
      this.#run,
    )
    this.#run.trace.record(AGENT_TRACE_STAGES.prepared, {
      system: turn.system.map((s) => s.id),
      userSections: turn.userSections.map((s) => s.id),
      prefill: turn.prefill,
      tools: turn.tools.map((t) => t.name),
    })
    return turn
  }

  /** The plan phase: proceed (the plan becomes a user section), ask the user, or end. */
  async #planPhase(ctx: CallContext, turn: TurnContext): Promise<StepOutcome> {
    const { outcome, calls } = await runPlanPhase(ctx, turn, this.#o.plan ?? {})
    this.#steps += calls
    switch (outcome.kind) {
      case 'aborted':
        return { end: this.#finish('aborted', this.#abortError()) }
      case 'failed':
        return { end: this.#finish('error', outcome.error) }
      case 'clarify':
        return { end: await this.#clarify(turn, outcome.question, outcome.context) }
      case 'proceed':
        this.#plan = outcome.plan
        return {
          turn: { ...turn, userSections: [planSection(outcome.plan), ...turn.userSections] },
        }
      default:
        return { turn }
    }
  }

  /**
   * One step: the call, then (write-ahead) the reply saved before its tools run, the tools
   * (calls that need a person wait), their results saved, the stop decision.
   */
  async #step(
    ctx: CallContext,
    prepared: TurnContext,
    step: number,
    guard: LoopGuard | undefined,
  ): Promise<StepOutcome> {
    const { result, next } = await this.#call(ctx, prepared, step)
    const turn = result.turn
    if (result.kind !== 'done') {
      // an interrupted reply asked for nothing that ran: finalized and reported, never saved
      // (the log keeps the step's input, so a resumed run makes the call again)
      const message = await this.#finalize(turn, interruptedReply(result.reply), true, step)
      this.#stepEnd(step, message)
      const failure = result.kind === 'aborted' ? this.#abortError() : result.error
      return { end: this.#finish(result.kind === 'aborted' ? 'aborted' : 'error', failure) }
    }
    const reply = result.reply
    const calls = reply.content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
    const message = await this.#finalize(turn, reply, calls.length === 0, step)
    await this.#save([message])
    if (calls.length === 0) {
      this.#stepEnd(step, message)
      const stop = replyStopReason(reply.stopReason)
      if (this.#o.output && stop === 'end_turn')
        return { end: await this.#output(ctx, turn, reply, step) }
      return { end: this.#finish(stop) }
    }
    const { results, verdict, pending } = await this.#tools(calls, result.invalidCalls, step, guard)
    this.#toolCalls.push(...calls)
    this.#sent.push(reply, ...(results ? [results] : []))
    this.#stepEnd(step, message, results)
    if (pending.length > 0)
      return { end: this.#finish('awaiting_approval', undefined, { pending }) }
    const { stop, failure } = this.#decideStop(step, reply, calls, verdict)
    if (!stop) return { turn: next }
    return {
      end: this.#finish(stop, failure ?? (stop === 'aborted' ? this.#abortError() : undefined)),
    }
  }

  /** The output phase after the final reply (`output`): `result.output`, or its error. */
  async #output(
    ctx: CallContext,
    turn: TurnContext,
    reply: AssistantMessage,
    step: number,
  ): Promise<AgentResult> {
    const out = await runOutputPhase({
      ctx,
      turn,
      sent: [...this.#sent, reply],
      step: step + 1,
      maxTokens: this.#o.maxTokens,
      spec: this.#o.output as OutputSpec,
      mode: this.#o.provider.outputMode ?? 'tool',
    })
    this.#steps += out.calls
    if (out.kind === 'done') return this.#finish('end_turn', undefined, { output: out.value })
    const failure = out.kind === 'aborted' ? this.#abortError() : out.error
    return this.#finish(out.kind === 'aborted' ? 'aborted' : 'error', failure)
  }

  /** The tool half of a step ({@link runGatedTools}), saving through this run's session. */
  #tools(
    calls: ToolCallBlock[],
    invalidCalls: ReadonlyMap<string, string>,
    step: number,
    guard: LoopGuard | undefined,
  ): Promise<GatedTools> {
    return runGatedTools({
      calls,
      invalidCalls,
      step,
      guard,
      tools: this.#o.tools,
      concurrency: this.#o.concurrency,
      signal: this.#signal,
      run: this.#run,
      emit: this.#emit,
      warn: this.#warn,
      save: (messages, approvals) => this.#save(messages, approvals),
    })
  }

  /**
   * The step's model call, with its `step-start` and `usage` events and its trace record; `next`
   * is the turn later steps start from (the prepared one, or the one a `recover` hook gave).
   */
  async #call(
    ctx: CallContext,
    turn: TurnContext,
    step: number,
  ): Promise<{ result: CallResult; next: TurnContext }> {
    const pricing = this.#o.model.pricing
    this.#emit({ type: 'step-start', step, phase: 'agent' })
    const setup = this.#control
      ? await this.#control.setup(turn, this.#sent, step - 1, this.#usage, this.#run)
      : undefined
    const spec: CallSpec = {
      turn: setup ? setup.turn : turn,
      extra: setup ? setup.extra : this.#sent,
      opensReply: step === 1,
      maxTokens: this.#o.maxTokens,
      step,
      phase: 'agent',
      ...(setup ? withChoice(setup.toolChoice) : withChoice(this.#o.toolChoice)),
    }
    const result =
      this.#compactor && !setup?.ownMessages
        ? await this.#compactor.call(ctx, spec)
        : await callModel(ctx, spec)
    if (setup?.offered && result.kind === 'done') refuseNotOffered(result, setup.offered)
    this.#steps++
    const usage = withCacheHitRate(result.reply.usage, pricing)
    this.#emit({ type: 'usage', step, usage, total: withCacheHitRate(this.#usage, pricing) })
    this.#run.trace.record(AGENT_TRACE_STAGES.reply, {
      step,
      stopReason: result.reply.stopReason,
      blocks: result.reply.content.map((b) => b.type),
      toolCalls: result.reply.content.flatMap((b) => (b.type === 'tool_call' ? [b.name] : [])),
      usage,
    })
    // a step's own changes last for its call only; a recovered turn replaces the run's
    return { result, next: setup && !result.recovered ? turn : result.turn }
  }

  /** After a step's tools: abort, the loop guard, then the stop conditions in order. */
  #decideStop(
    step: number,
    reply: AssistantMessage,
    calls: ToolCallBlock[],
    verdict: LoopGuardVerdict,
  ): { stop?: AgentStopReason; failure?: ContextkitError } {
    if (this.#signal.aborted) return { stop: 'aborted' }
    if (verdict.stop) return { stop: 'loop_detected' }
    return checkStopConditions(this.#o.conditions, {
      steps: step,
      lastReply: reply,
      lastToolCalls: calls,
      toolCalls: this.#toolCalls,
      messages: [...this.#saved],
      usage: this.#usage,
    })
  }

  /** Middleware `finalize` on a reply (`final`: it calls no tool). */
  async #finalize(
    turn: TurnContext,
    reply: AssistantMessage,
    final: boolean,
    step: number,
  ): Promise<AssistantMessage> {
    const info: FinalizeInfo = { final, step }
    const message = await runFinalize(this.#o.middleware, reply, turn, this.#run, info)
    this.#run.trace.record(AGENT_TRACE_STAGES.finalized, { ...info })
    return message
  }

  #stepEnd(step: number, message: AssistantMessage, results?: Message): void {
    this.#emit({
      type: 'step-end',
      step,
      phase: 'agent',
      message,
      ...(results ? { toolResults: results } : {}),
    })
  }

  /**
   * Append one batch to the session (one durable write); the messages are the run's own new
   * ones (`result.messages`) unless `input` (the user messages given to `runAgent`).
   */
  async #save(
    messages: readonly Message[],
    approvals: readonly ApprovalDraft[] = [],
    input = false,
  ): Promise<void> {
    if (!input) this.#saved.push(...messages)
    if (!this.#session || (messages.length === 0 && approvals.length === 0)) return
    await this.#session.append(messages, approvals)
    await this.#compactor?.persist(this.#session, this.#warn)
    this.#run.trace.record(AGENT_TRACE_STAGES.saved, {
      sessionId: this.#session.options.id,
      appended: messages.length + approvals.length,
      roles: messages.map((m) => m.role),
      ...(approvals.length > 0 ? { approvals: approvals.map((a) => a.status) } : {}),
    })
  }

  async #clarify(turn: TurnContext, question: string, context: string): Promise<AgentResult> {
    const reply: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: question }],
      stopReason: 'end_turn',
      usage: emptyUsage(),
    }
    const message = await this.#finalize(turn, reply, true, 1)
    await this.#save([message])
    this.#stepEnd(1, message)
    return this.#finish('clarify', undefined, { question, context })
  }

  #abortError(): ContextkitError | undefined {
    return abortError(this.#signal)
  }

  #finish(
    stopReason: AgentStopReason,
    error?: ContextkitError,
    extra?:
      | { question: string; context: string }
      | { pending: PendingApproval[] }
      | { output: unknown },
  ): AgentResult {
    const last = this.#saved.findLast((m) => m.role === 'assistant')
    const result: AgentResult = {
      runId: this.#runId,
      messages: [...this.#saved],
      steps: this.#steps,
      usage: runUsage(this.#usage, this.#calls, this.#o.model.pricing),
      stopReason,
      warnings: [...this.#warnings],
      text: last ? textOf(last) : '',
      ...(this.#plan === undefined ? {} : { plan: this.#plan }),
      ...(extra ?? {}),
      ...(error ? { error } : {}),
    }
    this.#run.trace.record(AGENT_TRACE_STAGES.stop, {
      stopReason,
      steps: this.#steps,
      ...(error ? { error: describeError(error), code: error.code } : {}),
    })
    this.#emit({ type: 'run-end', result })
    return result
  }
}
