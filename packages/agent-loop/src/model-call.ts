import {
  type AssistantMessage,
  assertArray,
  type ContentBlock,
  type ContextkitError,
  type ContextMiddleware,
  describeError,
  type Message,
  type RunInfo,
  runRecover,
  type TurnContext,
  type Usage,
} from '@contextkit/core'
import { type Formatter, formatterFor, MAX_CACHE_MARKERS } from '@contextkit/formatters'
import { type FittedSections, fitRequestSections, type RunTokenCounter } from './budget.js'
import {
  CACHE_BREAKPOINTS_DROPPED,
  type CachePlacement,
  type CacheState,
  finishCacheMarkers,
  hasStableSystem,
  placeCacheBreakpoints,
  stableFirst,
} from './cache-breakpoints.js'
import { type ProviderError, RequestBuildError } from './errors.js'
import type { AgentEvent, AgentPhase, AgentWarning } from './events.js'
import { PREFILL_FALLBACK, prefillFallback } from './prefill-fallback.js'
import type { ModelProvider, ProviderRequest } from './provider.js'
import { streamReply } from './stream-reply.js'
import { prepareSectionCounts } from './token-count-prepass.js'
import { AGENT_TRACE_STAGES } from './trace-stages.js'

/** What every model call of a run shares. */
export interface CallContext {
  provider: ModelProvider
  /** The preferred formatter (`formatterFor` may swap it per call). */
  formatter: Formatter | undefined
  middleware: readonly ContextMiddleware[]
  run: RunInfo
  signal: AbortSignal
  counter: RunTokenCounter
  budgetTokens: number | undefined
  emit(event: AgentEvent): void
  warn(warning: AgentWarning): void
  /** Adds a call's usage to the run's figures. */
  addUsage(usage: Usage, turn: number, phase: AgentPhase): void
  /** Prompt-cache placement across the run's calls. */
  cache: CacheState
}

/** One model call to make. */
export interface CallSpec {
  /** The prepared turn: model, system, base messages, user sections, prefill, tools, thinking. */
  turn: TurnContext
  /** Messages of this run after the turn's own (raw replies and tool results so far). */
  extra: readonly Message[]
  /** Send `turn.prefill` with this call (the first call of a turn only). */
  withPrefill: boolean
  maxTokens: number
  /** Event number of the call, and its phase. */
  number: number
  phase: AgentPhase
}

/** How a call ended, with the turn it ended on (a `recover` hook may have replaced it). */
export type CallResult =
  | { kind: 'done'; reply: AssistantMessage; invalidCalls: Map<string, string>; turn: TurnContext }
  | { kind: 'aborted'; reply: AssistantMessage; turn: TurnContext }
  | { kind: 'failed'; reply: AssistantMessage; turn: TurnContext; error: ContextkitError }

/**
 * The reply keeps what the model said including the prefill (one rule for every format): when
 * the request really opened the model's turn with `prefill`, and the first text block does not
 * already start with it, put it in front. Middleware `finalize` (prefill's) strips it again
 * before anything is saved; within the run the model sees its own words whole.
 */
export function withPrefillInReply(
  content: readonly ContentBlock[],
  prefill: string | undefined,
  assistantPrefill: string | undefined,
): ContentBlock[] {
  assertArray(content, 'withPrefillInReply', 'content')
  const p = prefill?.trimEnd() ?? ''
  if (p.trim() === '' || !assistantPrefill?.trimEnd().endsWith(p.trim())) return [...content]
  const index = content.findIndex((b) => b.type === 'text')
  const block = content[index]
  const out = [...content]
  if (block?.type === 'text') {
    if (!block.text.startsWith(p)) out[index] = { ...block, text: p + block.text }
    return out
  }
  const at = content.findIndex((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking')
  out.splice(at < 0 ? out.length : at, 0, { type: 'text', text: p })
  return out
}

/** A built request, with how its sections were fitted and where its breakpoints went. */
interface BuiltRequest {
  request: ProviderRequest
  formatter: Formatter
  fitted: FittedSections
  placement: CachePlacement
}

function buildRequest(ctx: CallContext, spec: CallSpec, turn: TurnContext): BuiltRequest {
  const formatter = formatterFor(turn.model, ctx.formatter)
  const messages = spec.extra.length > 0 ? [...turn.messages, ...spec.extra] : turn.messages
  const fitted = fitRequestSections({
    system: turn.system,
    userSections: turn.userSections,
    omitted: turn.omitted,
    messages: turn.messages,
    extra: spec.extra,
    tools: turn.tools,
    contextWindow: turn.model.contextWindow,
    maxTokens: spec.maxTokens,
    ...(ctx.budgetTokens === undefined ? {} : { budgetTokens: ctx.budgetTokens }),
    counter: ctx.counter,
  })
  // formats that write the model's turn themselves open thinking in text; others use the API's
  const textThinking = formatter.usesPrefill && turn.thinking?.enabled === true
  const prefill = spec.withPrefill ? turn.prefill : undefined
  // stable sections first: the formatter's breakpoint after them never has volatile text before it
  const system = stableFirst(fitted.system)
  const mode = ctx.cache.mode
  const toolText = formatter.formatToolDefinitions?.(turn.tools)
  const placement = placeCacheBreakpoints({
    mode,
    messages,
    stableSystem: mode === 'auto' && hasStableSystem(system, toolText),
    toolTokens: toolText === undefined ? ctx.counter.tools(turn.tools) : 0,
    ...(ctx.cache.previous ? { previous: ctx.cache.previous } : {}),
  })
  let formatted: ReturnType<Formatter['buildMessages']>
  try {
    formatted = formatter.buildMessages(placement.messages, {
      system,
      userSections: fitted.userSections,
      tools: turn.tools,
      model: turn.model,
      ...(prefill ? { prefill } : {}),
      ...(textThinking ? { thinking: true } : {}),
    })
  } catch (error) {
    throw new RequestBuildError(
      `Formatter "${formatter.name}" could not render the turn: ${describeError(error)}`,
      { cause: error, details: { formatter: formatter.name, model: turn.model.id } },
    )
  }
  const request: ProviderRequest = { ...formatted, model: turn.model, maxTokens: spec.maxTokens }
  if (turn.thinking?.enabled && !textThinking) request.thinking = turn.thinking
  const breakpoints = finishCacheMarkers(request, mode, placement)
  ctx.cache.previous = messages[messages.length - 1]
  return { request, formatter, fitted, placement: { ...placement, breakpoints } }
}

/**
 * Make one model call, with recovery: build the request (fit sections, pick the format, render),
 * stream the reply; when the provider fails, offer the error to each middleware's `recover` once
 * and retry the same call with the turn one of them returns.
 */
export async function callModel(ctx: CallContext, spec: CallSpec): Promise<CallResult> {
  let turn = spec.turn
  const tried = new Set<string>()
  let attempt = 0
  while (true) {
    await countSections(ctx, spec, turn)
    const { request, formatter, fitted, placement } = buildRequest(ctx, spec, turn)
    ctx.run.trace.record(AGENT_TRACE_STAGES.budget, {
      turn: spec.number,
      phase: spec.phase,
      budget: fitted.budget,
      tokens: fitted.tokens,
      kept: [...fitted.system, ...fitted.userSections].map((s) => s.id),
      omissions: fitted.omitted,
    })
    recordCache(ctx, spec, request, placement)
    ctx.run.trace.record(AGENT_TRACE_STAGES.request, {
      turn: spec.number,
      phase: spec.phase,
      formatter: formatter.name,
      model: turn.model.id,
      messages: request.messages.length,
      roles: request.messages.map((m) => m.role),
      endsWith: request.messages[request.messages.length - 1]?.role,
      prefilled: request.assistantPrefill !== undefined,
      tools: request.nativeTools?.length ?? 0,
    })
    for (const w of request.warnings)
      ctx.warn({ code: w.code, message: w.message, source: 'formatter' })
    const parser = formatter.createStreamParser({ tools: turn.tools })
    const outcome = await streamReply({
      provider: ctx.provider,
      request,
      parser,
      signal: ctx.signal,
      turn: spec.number,
      emit: ctx.emit,
      warn: ctx.warn,
    })
    // an interrupted reply that said nothing stays empty: the prefill alone is not a reply
    const said = outcome.kind === 'done' || outcome.reply.content.length > 0
    const prefill = spec.withPrefill && said ? turn.prefill : undefined
    const reply: AssistantMessage = {
      ...outcome.reply,
      content: withPrefillInReply(outcome.reply.content, prefill, request.assistantPrefill),
    }
    ctx.addUsage(reply.usage, spec.number, spec.phase)
    if (outcome.kind === 'done')
      return { kind: 'done', reply, invalidCalls: outcome.invalidCalls, turn }
    if (outcome.kind === 'aborted') return { kind: 'aborted', reply, turn }
    const recovery = await recover(ctx, outcome.error, turn, tried, request)
    if (!recovery) return { kind: 'failed', reply, turn, error: outcome.error }
    tried.add(recovery.by)
    turn = recovery.turn
    attempt++
    ctx.run.trace.record(AGENT_TRACE_STAGES.recovered, {
      turn: spec.number,
      by: recovery.by,
      error: describeError(outcome.error),
      status: outcome.error.status,
      errorType: outcome.error.errorType,
    })
    ctx.emit({
      type: 'retry',
      turn: spec.number,
      source: 'middleware',
      attempt,
      delayMs: 0,
      error: outcome.error,
      by: recovery.by,
    })
  }
}

/** Trace where the breakpoints went; warn once per run when messages' own ones were left out. */
function recordCache(
  ctx: CallContext,
  spec: CallSpec,
  request: ProviderRequest,
  placement: CachePlacement,
): void {
  ctx.run.trace.record(AGENT_TRACE_STAGES.cache, {
    turn: spec.number,
    phase: spec.phase,
    mode: ctx.cache.mode,
    breakpoints: placement.breakpoints,
    dropped: placement.dropped,
    applied: request.cacheMarkersApplied,
  })
  if (placement.dropped.length === 0 || ctx.cache.warnedDropped) return
  ctx.cache.warnedDropped = true
  ctx.warn({
    code: CACHE_BREAKPOINTS_DROPPED,
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
  if (recovered || tried.has(PREFILL_FALLBACK)) return recovered
  const fallback = prefillFallback(error, turn, request)
  if (!fallback) return undefined
  if (fallback.dropped) {
    ctx.warn({
      code: 'agent_loop_prefill_dropped',
      message: `Model ${turn.model.id} refused the request's trailing assistant turn; it is sent again without the prefill`,
      source: 'loop',
    })
  }
  return { turn: fallback.turn, by: PREFILL_FALLBACK }
}

/** The asynchronous token-count pre-pass (see `AsyncTokenCounter`), traced; never throws. */
async function countSections(ctx: CallContext, spec: CallSpec, turn: TurnContext): Promise<void> {
  const counts = await prepareSectionCounts({
    counter: ctx.counter,
    turn,
    extra: spec.extra,
    maxTokens: spec.maxTokens,
    budgetTokens: ctx.budgetTokens,
    signal: ctx.signal,
  })
  if (!counts) return
  for (const w of counts.warnings) ctx.warn({ ...w, source: 'token-counter' })
  const { counted: _counted, warnings, ...data } = counts
  ctx.run.trace.record(AGENT_TRACE_STAGES.tokenCount, {
    turn: spec.number,
    phase: spec.phase,
    counter: ctx.counter.counter.id,
    ...data,
    warnings: warnings.length,
  })
}
