import {
  type AssistantMessage,
  describeError,
  type Message,
  type Omission,
  runRecover,
  type TurnContext,
} from '@contextkit/core'
import { type CachePlacement, MAX_CACHE_MARKERS } from '@contextkit/core/cache'
import { formatterFor } from '@contextkit/formatters'
import { prepareSectionCounts } from '../budget/token-count-prepass.js'
import { inTraceScope } from '../events/run-trace.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import type { ProviderRequest } from '../provider/contract.js'
import type { ProviderError } from '../provider/errors.js'
import { type Attempt, type BuiltRequest, buildRequest } from './build-request.js'
import type { CallContext, CallResult, CallSpec } from './call-types.js'
import { recordComposition } from './composition-trace.js'
import { learnWindow } from './learn-window.js'
import { type StreamReplyOutcome, streamReply } from './stream-reply.js'
import { textToolChoice } from './text-tool-choice.js'
import {
  continueTrailingTurn,
  TRAILING_TURN_FALLBACK,
  withoutTrailingTurn,
} from './trailing-turn.js'

/**
 * Make one model call, with recovery: build the request (fit sections, pick the format, render),
 * stream the reply; when the provider fails, offer the error to each middleware's `recover` once
 * (then the loop's trailing-turn rule) and retry the same call with the turn returned.
 */
export async function callModel(ctx: CallContext, spec: CallSpec): Promise<CallResult> {
  let call = spec
  const tried = new Set<string>()
  for (let attempt = 1; ; attempt++) {
    const { reply, outcome, request } = await attemptCall(ctx, call)
    const turn = call.turn
    const recovered = attempt > 1 ? { recovered: true as const } : {}
    if (outcome.kind === 'done')
      return { kind: 'done', reply, invalidCalls: outcome.invalidCalls, turn, ...recovered }
    if (outcome.kind === 'aborted') return { kind: 'aborted', reply, turn, ...recovered }
    learnWindow(ctx, outcome.error, turn.model)
    const recovery = await recover(ctx, outcome.error, turn, tried, request)
    if (!recovery) return { kind: 'failed', reply, turn, error: outcome.error }
    tried.add(recovery.by)
    call = { ...call, turn: recovery.turn }
    reportRecovery(ctx, call, outcome.error, recovery.by, attempt)
  }
}

/** One attempt: count, build, trace and send the request; the reply continues a trailing turn. */
async function attemptCall(
  ctx: CallContext,
  call: CallSpec,
): Promise<{ reply: AssistantMessage; outcome: StreamReplyOutcome; request: ProviderRequest }> {
  const spec = attemptOf(ctx, call)
  await countSections(ctx, spec)
  const built = buildRequest(ctx, spec)
  const { request } = built
  traceRequest(ctx, spec, built)
  // the call's scope opened with its request record: what the provider does inside it (its HTTP
  // request) is seen inside the call
  const scope = { kind: 'call', phase: spec.phase, step: spec.step } as const
  const outcome = await inTraceScope(ctx.run.trace, scope, () =>
    streamReply({
      provider: ctx.provider,
      request,
      parser: spec.formatter.createStreamParser({ tools: spec.turn.tools }),
      signal: ctx.signal,
      step: spec.step,
      phase: spec.phase,
      trace: ctx.run.trace,
      emit: ctx.emit,
      warn: ctx.warn,
      ...(ctx.backpressure ? { backpressure: ctx.backpressure } : {}),
    }),
  )
  // an interrupted reply that said nothing stays empty: an opening alone is not a reply
  const said = outcome.kind === 'done' || outcome.reply.content.length > 0
  const opening = spec.opensReply && said ? spec.turn.prefill : undefined
  const reply: AssistantMessage = {
    ...outcome.reply,
    content: continueTrailingTurn(outcome.reply.content, opening, request.assistantPrefill),
  }
  ctx.addUsage(reply.usage, spec.step, spec.phase)
  return { reply, outcome, request }
}

/**
 * The attempt `call` makes: its model with the context window in force (`ctx.windows`), oversized tool results cut (`ctx.clip`: only the request carries the
 * clipped text; the run's messages and the session keep it whole), a forced tool choice written
 * into a text tool format's turn, and the formatter picked once.
 */
function attemptOf(ctx: CallContext, call: CallSpec): Attempt {
  const clip = ctx.clip
  const inForce = ctx.windows.turn(call.turn)
  const clipped = clip
    ? {
        ...call,
        extra: call.extra.map((m) => clip.message(m)),
        turn: { ...inForce, messages: clip.messages(call.turn.messages) as Message[] },
      }
    : { ...call, turn: inForce }
  const formatter = formatterFor(clipped.turn.model, ctx.formatter)
  const turn = clipped.toolChoice
    ? textToolChoice(clipped.turn, clipped.toolChoice, formatter)
    : clipped.turn
  return { ...clipped, turn, formatter }
}

/** The budget, cache and request trace records of one attempt, and the formatter's warnings. */
function traceRequest(
  ctx: CallContext,
  spec: Attempt,
  { request, fitted, placement }: BuiltRequest,
): void {
  const { turn, formatter } = spec
  ctx.run.trace.record(AGENT_TRACE_STAGES.budget, {
    step: spec.step,
    phase: spec.phase,
    budget: fitted.budget,
    tokens: fitted.tokens,
    kept: [...fitted.system, ...fitted.userSections].map((s) => s.id),
    omissions: fitted.omitted,
  })
  recordComposition(ctx, spec, turn, fitted)
  warnDropped(ctx, fitted.omitted)
  recordCache(ctx, spec, request, placement)
  ctx.run.trace.record(AGENT_TRACE_STAGES.request, {
    step: spec.step,
    phase: spec.phase,
    formatter: formatter.name,
    model: turn.model.id,
    maxTokens: request.maxTokens,
    provider: ctx.provider.name,
    ...(ctx.provider.system === undefined ? {} : { system: ctx.provider.system }),
    ...(ctx.provider.baseUrl === undefined ? {} : { baseUrl: ctx.provider.baseUrl }),
    messages: request.messages.length,
    roles: request.messages.map((m) => m.role),
    endsWith: request.messages[request.messages.length - 1]?.role,
    prefilled: request.assistantPrefill !== undefined,
    tools: request.nativeTools?.length ?? 0,
  })
  for (const w of request.warnings)
    ctx.warn({ code: w.code, message: w.message, source: 'formatter' })
}

/** One warning per section the run's fitting dropped, besides the notice the model reads. */
function warnDropped(ctx: CallContext, omitted: readonly Omission[]): void {
  for (const o of omitted) {
    if (o.reason !== 'dropped') continue
    ctx.droppedWarned ??= new Set()
    if (ctx.droppedWarned.has(o.id)) continue
    ctx.droppedWarned.add(o.id)
    const size = Number.isFinite(o.tokensSaved) ? ` (~${o.tokensSaved} tokens)` : ''
    ctx.warn({
      code: AGENT_LOOP_WARNINGS.sectionDropped,
      message: `Section "${o.id}"${size} was left out to fit the token budget`,
      source: 'loop',
    })
  }
}

/** A recovered failure: its trace record and the `retry` event (`source: 'middleware'`). */
function reportRecovery(
  ctx: CallContext,
  spec: CallSpec,
  error: ProviderError,
  by: string,
  attempt: number,
): void {
  ctx.run.trace.record(AGENT_TRACE_STAGES.recovered, {
    step: spec.step,
    by,
    error: describeError(error),
    status: error.status,
    errorType: error.errorType,
  })
  ctx.emit({ type: 'retry', step: spec.step, source: 'middleware', attempt, delayMs: 0, error, by })
}

/** Trace where the breakpoints went; warn once per run when messages' own ones were left out. */
function recordCache(
  ctx: CallContext,
  spec: CallSpec,
  request: ProviderRequest,
  placement: CachePlacement,
): void {
  ctx.run.trace.record(AGENT_TRACE_STAGES.cache, {
    step: spec.step,
    phase: spec.phase,
    mode: ctx.cache.mode,
    breakpoints: placement.breakpoints,
    dropped: placement.dropped,
    applied: request.cacheMarkersApplied,
  })
  if (placement.dropped.length === 0 || ctx.cache.warnedDropped) return
  ctx.cache.warnedDropped = true
  ctx.warn({
    code: AGENT_LOOP_WARNINGS.cacheBreakpointsDropped,
    message: `${placement.dropped.length} message cache breakpoint(s) not sent: a request carries at most ${MAX_CACHE_MARKERS}, and the loop's own come first`,
    source: 'loop',
  })
}

async function recover(
  ctx: CallContext,
  error: ProviderError,
  turn: TurnContext,
  tried: ReadonlySet<string>,
  request: ProviderRequest,
): Promise<{ turn: TurnContext; by: string } | undefined> {
  if (ctx.signal.aborted) return undefined
  const recovered = await runRecover(ctx.middleware, error, turn, ctx.run, tried)
  if (recovered || tried.has(TRAILING_TURN_FALLBACK)) return recovered
  const fallback = withoutTrailingTurn(error, turn, request)
  if (!fallback) return undefined
  if (fallback.dropped) {
    ctx.warn({
      code: AGENT_LOOP_WARNINGS.trailingTurnDropped,
      message: `Model ${turn.model.id} refused the request's trailing assistant turn; it is sent again without it`,
      source: 'loop',
    })
  }
  return { turn: fallback.turn, by: TRAILING_TURN_FALLBACK }
}

/** The asynchronous token-count pre-pass (see `AsyncTokenCounter`), traced; never throws. */
async function countSections(ctx: CallContext, spec: Attempt): Promise<void> {
  const counts = await prepareSectionCounts({
    counter: ctx.counter,
    turn: spec.turn,
    extra: spec.extra,
    maxTokens: spec.maxTokens,
    budgetTokens: ctx.budgetTokens,
    signal: ctx.signal,
  })
  if (!counts) return
  for (const w of counts.warnings) ctx.warn({ ...w, source: 'token-counter' })
  const { counted: _counted, warnings, ...data } = counts
  ctx.run.trace.record(AGENT_TRACE_STAGES.tokenCount, {
    step: spec.step,
    phase: spec.phase,
    counter: ctx.counter.counter.id,
    ...data,
    warnings: warnings.length,
  })
}
