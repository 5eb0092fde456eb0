import {
  type AssistantMessage,
  describeError,
  emptyUsage,
  type Message,
  type TurnContext,
} from '@contextkit/core'
import { describeWindow, type WindowInForce } from '../budget/context-window.js'
import type { CallContext, CallResult, CallSpec } from '../call/call-types.js'
import { callModel } from '../call/model-call.js'
import type { CompactionReason } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { ContextTooLongError } from '../provider/errors.js'
import type { SessionRun } from '../session/session-run.js'
import { summaryMessage, summaryOf } from '../session/summary-message.js'
import { MIN_COMPACTION_GAIN, type ResolvedCompaction } from './compaction-options.js'
import { ContextIrreducibleError } from './errors.js'
import { compactionDue, estimateRequest, selectCut } from './select-cut.js'
import {
  clipToTokens,
  serializeConversation,
  summaryCallSpec,
  summaryMaxTokens,
  summaryText,
} from './summarize.js'

/** A compaction made in the current step, written to the session after the step's batch. */
interface PendingCompaction {
  summary: string
  firstKept: Message
  beforeTokens: number
  afterTokens: number
  reason: CompactionReason
}

/** The messages a call sends: the turn's (or the compacted base) and this run's after them. */
interface View {
  turn: TurnContext
  extra: readonly Message[]
}

/**
 * The run's call context for a summary call: its own prompt-cache state (the summary must not
 * move the step's breakpoints), no clipping of its one message, and of its events only retries
 * (its text is no step's reply).
 */
function summaryContext(ctx: CallContext): CallContext {
  const { clip: _clip, requests: _requests, ...rest } = ctx
  return {
    ...rest,
    cache: { mode: ctx.cache.mode, warnedDropped: true },
    droppedWarned: new Set(),
    emit: (event) => {
      if (event.type === 'retry') ctx.emit(event)
    },
  }
}

function emptyReply(): AssistantMessage {
  return { role: 'assistant', content: [], stopReason: 'end_turn', usage: emptyUsage() }
}

/**
 * Keeps a run's requests inside the model's context window by summarizing older history, with
 * hard bounds: at most `maxAttemptsPerStep` compactions per step, a threshold compaction only
 * after a successful model step since the last one, threshold compaction off for good once a
 * compaction frees less than {@link MIN_COMPACTION_GAIN} of the window, and a typed
 * {@link ContextIrreducibleError} (no provider call) when what cannot be removed is over the
 * window. So no summarize loop is possible.
 */
export class Compactor {
  readonly #o: ResolvedCompaction
  /** The compacted history (summary + kept tail), replacing the turn's messages. */
  #base: Message[] | undefined
  /** How many of the run's own messages (`extra`) the base already holds. */
  #consumed = 0
  #armed = true
  #thresholdOn = true
  #step = -1
  #attempts = 0
  #pending: PendingCompaction | undefined
  /** Compactions made in this run. */
  compactions = 0

  constructor(options: ResolvedCompaction) {
    this.#o = options
  }

  /** {@link callModel} with the pre-call check, threshold compaction and one overflow retry. */
  async call(ctx: CallContext, spec: CallSpec): Promise<CallResult> {
    if (spec.step !== this.#step) {
      this.#step = spec.step
      this.#attempts = 0
    }
    const window = ctx.windows.of(spec.turn.model)
    let view = this.#view(ctx, spec)
    const estimate = this.#estimate(ctx, view)
    if (estimate.floor > window.tokens) return this.#irreducible(spec, estimate.floor, window)
    const over = estimate.total > window.tokens
    if ((this.#thresholdOn || over) && this.#armed && this.#canAttempt()) {
      if (over || compactionDue(estimate.total, this.#o.at, window.tokens)) {
        if (await this.#compact(ctx, spec, view, 'threshold', estimate.total))
          view = this.#view(ctx, spec)
      }
    }
    let result = await callModel(ctx, { ...spec, ...view })
    if (
      result.kind === 'failed' &&
      ContextTooLongError.isInstance(result.error) &&
      this.#canAttempt()
    ) {
      const before = this.#estimate(ctx, view).total
      // the refusal may have stated the server's window (callModel learned it): quote that one
      const inForce = ctx.windows.of(spec.turn.model)
      if (!(await this.#compact(ctx, spec, view, 'overflow', before)))
        return { ...result, error: this.#irreducibleError(result.error, before, inForce) }
      view = this.#view(ctx, spec)
      result = await callModel(ctx, { ...spec, ...view })
    }
    if (result.kind === 'done') this.#armed = true
    return result
  }

  /** Write the step's compaction (if any) to the session, after the step's batch. */
  async persist(session: SessionRun | undefined, warn: CallContext['warn']): Promise<void> {
    const pending = this.#pending
    this.#pending = undefined
    if (!pending || !session) return
    const firstKeptId = session.idOf(pending.firstKept)
    if (firstKeptId === undefined) {
      warn({
        code: AGENT_LOOP_WARNINGS.compactionNotSaved,
        message: 'The compaction was not saved: its first kept message has no session entry',
        source: 'loop',
      })
      return
    }
    await session.appendCompaction({
      summary: pending.summary,
      firstKeptId,
      tokensBefore: pending.beforeTokens,
      tokensAfter: pending.afterTokens,
      reason: pending.reason,
    })
  }

  #canAttempt(): boolean {
    return this.#attempts < this.#o.maxAttemptsPerStep
  }

  #view(ctx: CallContext, spec: CallSpec): View {
    const base = this.#base
    const messages = base ?? spec.turn.messages
    const extra = base ? spec.extra.slice(this.#consumed) : spec.extra
    const clip = ctx.clip
    if (!clip) return { turn: { ...spec.turn, messages: [...messages] }, extra }
    return {
      turn: { ...spec.turn, messages: clip.messages(messages) as Message[] },
      extra: extra.map((m) => clip.message(m)),
    }
  }

  #estimate(ctx: CallContext, view: View) {
    const all = view.extra.length > 0 ? [...view.turn.messages, ...view.extra] : view.turn.messages
    return estimateRequest(view.turn, all, ctx.counter)
  }

  #irreducibleError(
    cause: unknown,
    tokens: number,
    window: WindowInForce,
  ): ContextIrreducibleError {
    return new ContextIrreducibleError(
      `The system prompt, the tool definitions and the newest turn need ~${tokens} tokens, over the model's ${describeWindow(window)}; no compaction can make the request fit`,
      {
        ...(cause === undefined ? {} : { cause }),
        details: { tokens, contextWindow: window.tokens, windowSource: window.source },
      },
    )
  }

  #irreducible(spec: CallSpec, tokens: number, window: WindowInForce): CallResult {
    const error = this.#irreducibleError(undefined, tokens, window)
    return { kind: 'failed', reply: emptyReply(), turn: spec.turn, error }
  }

  /** Summarize the history before the cut; `false` when nothing was (or could be) compacted. */
  async #compact(
    ctx: CallContext,
    spec: CallSpec,
    view: View,
    reason: CompactionReason,
    beforeTokens: number,
  ): Promise<boolean> {
    const messages = [...view.turn.messages, ...view.extra]
    const window = ctx.windows.of(spec.turn.model)
    // the option's keep is clamped to a quarter of the threshold of the window in force
    const keep = Math.min(this.#o.keepRecentTokens, Math.floor((this.#o.at * window.tokens) / 4))
    const cut = selectCut(messages, keep, (m) => ctx.counter.message(m))
    if (cut === undefined) return false
    this.#attempts++
    this.#armed = false
    const step = spec.step
    ctx.emit({ type: 'compaction-start', step, reason, beforeTokens })
    const summarized = messages.slice(0, cut)
    const summary = await this.#summarize(ctx, spec, summarized)
    if (summary === undefined) {
      ctx.emit({ type: 'compaction-end', step, reason, beforeTokens, afterTokens: beforeTokens })
      return false
    }
    const firstKept = messages[cut] as Message
    this.#base = [summaryMessage(summary), ...messages.slice(cut)]
    this.#consumed = spec.extra.length
    this.compactions++
    const afterTokens = this.#estimate(ctx, this.#view(ctx, spec)).total
    ctx.emit({ type: 'compaction-end', step, reason, beforeTokens, afterTokens })
    ctx.run.trace.record(AGENT_TRACE_STAGES.compacted, {
      step,
      reason,
      beforeTokens,
      afterTokens,
      summarized: cut,
      kept: messages.length - cut,
      summaryTokens: ctx.counter.text(summary),
    })
    this.#pending = { summary, firstKept, beforeTokens, afterTokens, reason }
    if (this.#thresholdOn && beforeTokens - afterTokens < MIN_COMPACTION_GAIN * window.tokens) {
      this.#thresholdOn = false
      ctx.warn({
        code: AGENT_LOOP_WARNINGS.compactionIneffective,
        message: `A compaction freed ${beforeTokens - afterTokens} tokens, less than ${MIN_COMPACTION_GAIN * 100}% of the ${describeWindow(window)}: threshold compaction is off for the rest of the run`,
        source: 'loop',
      })
    }
    return true
  }

  /** The summary text, or `undefined` (with a warning) when the summarizer failed. */
  async #summarize(
    ctx: CallContext,
    spec: CallSpec,
    summarized: readonly Message[],
  ): Promise<string | undefined> {
    // the summarizer's model with the window in force (a window a server stated included)
    const model = ctx.windows.model(this.#o.model)
    const previousSummary = summaryOf(summarized[0])
    const conversation = clipToTokens(
      serializeConversation(summarized),
      Math.floor(model.contextWindow * 0.6),
      ctx.counter.counter,
    )
    const draft = {
      messages: summarized,
      ...(previousSummary === undefined ? {} : { previousSummary }),
      conversation,
      maxTokens: model.maxOutput,
      signal: ctx.signal,
    }
    const input = { ...draft, maxTokens: summaryMaxTokens(model, draft, ctx.counter.counter) }
    try {
      if (this.#o.summarize !== 'model') {
        const text = await this.#o.summarize(input)
        if (typeof text !== 'string') throw new TypeError('the summarizer did not return a string')
        return text
      }
      return summaryText(
        await callModel(summaryContext(ctx), summaryCallSpec(model, input, spec.step)),
      )
    } catch (error) {
      ctx.warn({
        code: AGENT_LOOP_WARNINGS.compactionFailed,
        message: `The history could not be summarized: ${describeError(error)}`,
        source: 'loop',
      })
      return undefined
    }
  }
}
