// Steps 5 to 7 of a model call: fit the sections to the budget, place the prompt-cache
// breakpoints, render the request with the call's formatter (see `model-call.ts` for the call).
import { describeError, type Message } from '@contextkit/core'
import { type CachePlacement, placeCacheBreakpoints, stableFirst } from '@contextkit/core/cache'
import type { Formatter } from '@contextkit/formatters'
import { type FittedSections, fitRequestSections } from '../budget/budget.js'
import { finishCacheMarkers, hasStableSystem } from '../budget/cache-breakpoints.js'
import type { ProviderRequest } from '../provider/contract.js'
import type { CallContext, CallSpec } from './call-types.js'
import { RequestBuildError } from './errors.js'

/**
 * One attempt of a call as it is sent: the spec with the turn it is on now (a `recover` hook may
 * have replaced the spec's), its oversized tool results cut and a text tool format's forced
 * choice applied, and the formatter picked once for it.
 */
export interface Attempt extends CallSpec {
  formatter: Formatter
}

/** A built request, with how its sections were fitted and where its breakpoints went. */
export interface BuiltRequest {
  request: ProviderRequest
  fitted: FittedSections
  placement: CachePlacement
}

/**
 * The request of one attempt: its sections fitted, its breakpoints placed, rendered by its
 * formatter (with the run's request memo, so the history the previous call began with is not
 * rendered again), the breakpoints the request really carries counted.
 *
 * @throws RequiredSectionsError when the required sections alone are over the budget.
 * @throws RequestBuildError when the formatter cannot render the turn.
 */
export function buildRequest(ctx: CallContext, spec: Attempt): BuiltRequest {
  const { turn } = spec
  const messages = spec.extra.length > 0 ? [...turn.messages, ...spec.extra] : turn.messages
  const fitted = fitRequestSections({
    system: turn.system,
    userSections: turn.userSections,
    omitted: turn.omitted,
    messages: turn.messages,
    extra: spec.extra,
    tools: turn.tools,
    contextWindow: turn.model.contextWindow,
    windowSource: ctx.windows.of(turn.model).source,
    maxTokens: spec.maxTokens,
    ...(ctx.budgetTokens === undefined ? {} : { budgetTokens: ctx.budgetTokens }),
    counter: ctx.counter,
  })
  const { request, placement } = render(ctx, spec, messages, fitted)
  const breakpoints = finishCacheMarkers(request, ctx.cache.mode, placement)
  ctx.cache.previous = messages[messages.length - 1]
  return { request, fitted, placement: { ...placement, breakpoints } }
}

/** Place the breakpoints of `messages` and render them with the fitted sections. */
function render(
  ctx: CallContext,
  spec: Attempt,
  messages: readonly Message[],
  fitted: FittedSections,
): { request: ProviderRequest; placement: CachePlacement } {
  const { turn, formatter } = spec
  // formats that write the model's turn themselves open thinking in text; others use the API's
  const textThinking = formatter.usesPrefill && turn.thinking?.enabled === true
  const prefill = spec.opensReply ? turn.prefill : undefined
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
  const options = {
    system,
    userSections: fitted.userSections,
    tools: turn.tools,
    model: turn.model,
    ...(prefill ? { prefill } : {}),
    ...(textThinking ? { thinking: true } : {}),
  }
  let formatted: ReturnType<Formatter['buildMessages']>
  try {
    formatted = formatter.buildMessages(placement.messages, options, ctx.requests)
  } catch (error) {
    throw new RequestBuildError(
      `Formatter "${formatter.name}" could not render the turn: ${describeError(error)}`,
      { cause: error, details: { formatter: formatter.name, model: turn.model.id } },
    )
  }
  const request: ProviderRequest = { ...formatted, model: turn.model, maxTokens: spec.maxTokens }
  if (spec.toolChoice && request.nativeTools?.length) request.toolChoice = spec.toolChoice
  if (spec.responseFormat) request.responseFormat = spec.responseFormat
  if (turn.thinking?.enabled && !textThinking) request.thinking = turn.thinking
  return { request, placement }
}
