import {
  type AssistantMessage,
  CORE_TRACE_STAGES,
  ContextkitError,
  createRunInfo,
  describeError,
  type FinalizeInfo,
  type KeptSessionLease,
  type Message,
  type RunInfo,
  runFinalize,
  type ToolCallBlock,
  type TurnContext,
} from '@contextkit/core'
import { requestMemo } from '@contextkit/formatters'
import { RunTokenCounter } from '../budget/budget.js'
import { RunWindows } from '../budget/context-window.js'
import { defaultCounterFor } from '../budget/message-estimates.js'
import { runClipper } from '../budget/tool-result-clip.js'
import type { CallContext } from '../call/call-types.js'
import { Compactor } from '../compaction/compactor.js'
import type { AgentEvent, AgentResult, AgentWarning, EventChannel } from '../events/events.js'
import { type ResultExtra, RunRecord } from '../events/run-record.js'
import { inTraceScope, safeRecord, warningTrace } from '../events/run-trace.js'
import { interruptedReply } from '../events/run-usage.js'
import { type AgentStopReason, replyStopReason } from '../events/stop-reasons.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { runOutputPhase } from '../output/final-output.js'
import type { OutputSpec } from '../output/output-schema.js'
import { withUserContext } from '../plan/answers.js'
import { planSection, runPlanPhase } from '../plan/plan.js'
import { AgentLoopError } from '../provider/errors.js'
import type { ApprovalDraft, SessionRun } from '../session/session-run.js'
import { callStep, type StepCallInput } from '../step/step-call.js'
import { StepControl } from '../step/step-control.js'
import { decideStop } from '../stop/stop-conditions.js'
import { type GatedTools, runGatedTools } from '../tools/gated-tools.js'
import { LoopGuard } from '../tools/loop-guard.js'
import { abortError } from './errors.js'
import type { ResolvedOptions } from './options.js'
import { beginRun, type OpenedSession, prepareTurn } from './run-begin.js'
import { openRunSession, runStartData, textReply } from './run-session.js'

/** How a step ended: the turn to go on with, or the run's end. */
type StepOutcome = { turn: TurnContext } | { end: AgentResult }

/**
 * One run of the agent loop; {@link AgentLoop.run} never rejects. A run is: open the session,
 * prepare the turn (middleware), the plan phase when asked, then steps until a stop. A step is
 * one model call ({@link callStep}), the reply finalized and saved before its tools run,
 * the tools and their results saved, and the stop decision.
 */
export class AgentLoop {
  readonly #o: ResolvedOptions
  readonly #signal: AbortSignal
  readonly #channel: EventChannel<AgentEvent>
  readonly #runId: string
  /** What the run has gathered: messages, tool calls, usage, steps, warnings, plan. */
  readonly #r: RunRecord
  #session: SessionRun | undefined
  /** The session's lease, held from before the load to the end of the run. */
  #lease: KeptSessionLease | undefined
  readonly #abort: (reason: unknown) => void
  #run!: RunInfo
  /** Keeps requests inside the window (`compaction`); none when compaction is off. */
  readonly #compactor: Compactor | undefined
  /** `prepareStep` (the option's and the middleware's); none when nothing prepares steps. */
  readonly #control: StepControl | undefined
  /** The context windows in force: the models' own, or what a server stated (this run or the session's). */
  #windows = new RunWindows()

  constructor(
    options: ResolvedOptions,
    signal: AbortSignal,
    channel: EventChannel<AgentEvent>,
    runId: string,
    abort: (reason: unknown) => void = () => {},
  ) {
    this.#abort = abort
    this.#o = options
    this.#signal = signal
    this.#channel = channel
    this.#runId = runId
    this.#r = new RunRecord(runId, options.model.pricing)
    this.#compactor = options.compaction ? new Compactor(options.compaction) : undefined
    this.#control = StepControl.create(options)
  }

  #emit = (event: AgentEvent): void => this.#channel.push(event)

  /** Wait for the event readers when the slowest is `capacity` events behind; else go on. */
  #backpressure = (): Promise<void> | undefined =>
    this.#channel.desiredSize > 0 ? undefined : this.#channel.ready()

  #warn = (warning: AgentWarning): void => {
    this.#r.warnings.push(warning)
    this.#emit({ type: 'warning', warning })
    safeRecord(this.#o.trace, CORE_TRACE_STAGES.warning, { ...warning })
  }

  /** Run to a stop; every failure becomes the result's `error`, never a rejection. */
  async run(): Promise<AgentResult> {
    const o = this.#o
    this.#run = createRunInfo({
      runId: this.#runId,
      trace: warningTrace(o.trace, (warning) => {
        this.#r.warnings.push(warning)
        this.#emit({ type: 'warning', warning })
      }),
      signal: this.#signal,
      ...(o.workspace === undefined ? {} : { workspace: o.workspace }),
      ...(o.session === undefined ? {} : { sessionId: o.session.id }),
    })
    const counter = new RunTokenCounter(o.tokenCounter ?? defaultCounterFor(o.model))
    let started = false
    try {
      const { opened, warnings } = await this.#openSession(counter)
      this.#start(opened?.messages.length ?? 0)
      started = true
      for (const w of warnings) this.#warn(w)
      return await inTraceScope(this.#run.trace, { kind: 'run' }, () =>
        this.#afterStart(counter, opened),
      )
    } catch (error) {
      if (!started) this.#start(0)
      const failure = ContextkitError.isInstance(error)
        ? error
        : new AgentLoopError(`The run failed: ${describeError(error)}`, { cause: error })
      return this.#finish(this.#signal.aborted ? 'aborted' : 'error', failure)
    } finally {
      await this.#lease?.stop()
    }
  }

  /**
   * The run once started (inside the trace's run scope): take up the session's unfinished run,
   * save the new messages, then steps to a stop.
   */
  async #afterStart(
    counter: RunTokenCounter,
    opened: OpenedSession | undefined,
  ): Promise<AgentResult> {
    const begun = await beginRun({
      options: this.#o,
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
  }

  /** Take the session's lease (waiting while it is busy), then load its log when there is one. */
  async #openSession(
    counter: RunTokenCounter,
  ): Promise<{ opened: OpenedSession | undefined; warnings: AgentWarning[] }> {
    if (!this.#o.session) return { opened: undefined, warnings: [] }
    const held = await openRunSession(this.#o, {
      runId: this.#runId,
      signal: this.#signal,
      abort: this.#abort,
      counter,
      trace: this.#run.trace,
      onLease: (lease) => {
        this.#lease = lease
      },
    })
    this.#session = held.opened.session
    this.#windows = new RunWindows(held.opened.windows)
    return held
  }

  #start(historyMessages: number): void {
    const data = runStartData(this.#o, this.#runId, historyMessages)
    const { provider } = this.#o
    this.#run.trace.record(AGENT_TRACE_STAGES.runStart, {
      ...data,
      provider: provider.name,
      ...(provider.system === undefined ? {} : { system: provider.system }),
    })
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
      windows: this.#windows,
      budgetTokens: o.budgetTokens,
      emit: this.#emit,
      warn: this.#warn,
      backpressure: this.#backpressure,
      addUsage: (usage, step, phase) => this.#r.addUsage(usage, step, phase),
      cache: { mode: o.cache, warnedDropped: false },
      clip: runClipper(o, this.#windows.of(o.model).tokens, counter.asCounter(), counter.counter),
      requests: requestMemo(),
    }
  }

  /** Prepare the turn, run the plan phase when asked, then steps until one ends the run. */
  async #runSteps(ctx: CallContext, history: Message[]): Promise<AgentResult> {
    const prepared = await prepareTurn(this.#o, history, this.#run)
    const planned = this.#o.plan ? await this.#planPhase(ctx, prepared) : { turn: prepared }
    if ('end' in planned) return planned.end
    let turn = planned.turn
    const guard = this.#o.loopGuard === false ? undefined : new LoopGuard(this.#o.loopGuard)
    const call: StepCallInput = {
      ctx,
      record: this.#r,
      control: this.#control,
      compactor: this.#compactor,
      maxTokens: this.#o.maxTokens,
      toolChoice: this.#o.toolChoice,
    }
    for (let step = 1; ; step++) {
      const outcome = await this.#step(call, turn, step, guard)
      if ('end' in outcome) return outcome.end
      turn = outcome.turn
    }
  }

  /** The plan phase: proceed (the plan becomes a user section), ask the user, or end. */
  async #planPhase(ctx: CallContext, prepared: TurnContext): Promise<StepOutcome> {
    const { outcome, calls, answers } = await runPlanPhase(ctx, prepared, this.#o.plan ?? {})
    const turn = withUserContext(prepared, answers)
    this.#r.steps += calls
    switch (outcome.kind) {
      case 'aborted':
        return { end: this.#finish('aborted', this.#abortError()) }
      case 'failed':
        return { end: this.#finish('error', outcome.error) }
      case 'clarify':
        return { end: await this.#clarify(turn, outcome.question, outcome.context) }
      case 'proceed':
        this.#r.plan = outcome.plan
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
    call: StepCallInput,
    prepared: TurnContext,
    step: number,
    guard: LoopGuard | undefined,
  ): Promise<StepOutcome> {
    const { result, next } = await callStep(call, prepared, step)
    const turn = result.turn
    if (result.kind !== 'done') {
      // an interrupted reply asked for nothing that ran: finalized and reported, never saved
      // (the log keeps the step's input, so a resumed run makes the call again)
      const message = await this.#finalize(turn, interruptedReply(result.reply), true, step)
      await this.#session?.recordWindows(this.#windows.takeUnsaved())
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
        return { end: await this.#output(call.ctx, turn, reply, step) }
      return { end: this.#finish(stop) }
    }
    const { results, verdict, pending } = await this.#tools(calls, result.invalidCalls, step, guard)
    this.#r.toolCalls.push(...calls)
    this.#r.sent.push(reply, ...(results ? [results] : []))
    this.#stepEnd(step, message, results)
    if (pending.length > 0)
      return { end: this.#finish('awaiting_approval', undefined, { pending }) }
    const { stop, failure } = decideStop(this.#signal, verdict, this.#o.conditions, {
      steps: step,
      lastReply: reply,
      lastToolCalls: calls,
      toolCalls: this.#r.toolCalls,
      messages: [...this.#r.saved],
      usage: this.#r.usage,
    })
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
      sent: [...this.#r.sent, reply],
      step: step + 1,
      maxTokens: this.#o.maxTokens,
      spec: this.#o.output as OutputSpec,
      mode: this.#o.provider.outputMode ?? 'tool',
    })
    this.#r.steps += out.calls
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
    if (!input) this.#r.saved.push(...messages)
    if (!this.#session || (messages.length === 0 && approvals.length === 0)) return
    await this.#session.append(messages, approvals)
    await this.#session?.recordWindows(this.#windows.takeUnsaved())
    await this.#compactor?.persist(this.#session, this.#warn)
    this.#run.trace.record(AGENT_TRACE_STAGES.saved, {
      sessionId: this.#session.options.id,
      appended: messages.length + approvals.length,
      roles: messages.map((m) => m.role),
      ...(approvals.length > 0 ? { approvals: approvals.map((a) => a.status) } : {}),
    })
  }

  async #clarify(turn: TurnContext, question: string, context: string): Promise<AgentResult> {
    const message = await this.#finalize(turn, textReply(question), true, 1)
    await this.#save([message])
    this.#stepEnd(1, message)
    return this.#finish('clarify', undefined, { question, context })
  }

  #abortError(): ContextkitError | undefined {
    return abortError(this.#signal)
  }

  #finish(stopReason: AgentStopReason, error?: ContextkitError, extra?: ResultExtra): AgentResult {
    const result = this.#r.result(stopReason, error, extra)
    this.#run.trace.record(AGENT_TRACE_STAGES.stop, {
      stopReason,
      steps: result.steps,
      ...(error ? { error: describeError(error), code: error.code } : {}),
    })
    this.#emit({ type: 'run-end', result })
    return result
  }
}
