import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
} from '@ai-sdk/provider'
import {
  type ContextMiddleware,
  createTokenCounter,
  createTurnContext,
  getModelInfo,
  type ModelInfo,
  runPrepare,
  runRecover,
  type TokenCounter,
  type Trace,
  type TurnContext,
} from '@contextkit/core'
import type { CacheMode } from '@contextkit/core/cache'
import { markerOf, planCache } from './cache-marks.js'
import { callError } from './errors.js'
import { fitTurn } from './fit.js'
import { parseOptions } from './options.js'
import { type CorePrompt, type PromptMessage, toCorePrompt, toCoreTools } from './prompt.js'
import { finalizeReply, finalizeStream } from './reply.js'
import { type RunMemory, RunTracker } from './runs.js'
import { writeBack } from './write-back.js'

/** Options of {@link contextkitMiddleware}. */
export interface ContextkitMiddlewareOptions {
  /** The contextkit middleware, `prepare` in order, `finalize` in reverse (as in `runAgent`). */
  middleware: readonly ContextMiddleware[]
  /** The model's id (core's table) or a core `ModelInfo`. Default: the wrapped model's `modelId` looked up in core's table. */
  model?: string | ModelInfo
  /** The workspace directory (`RunInfo.workspace`, read by prefill, preload, …). Default: none. */
  workspace?: string
  /** Token budget of the system and user sections. Default: the context window minus the reply (`maxOutputTokens`), the messages and the tools. */
  budgetTokens?: number
  /** Counter for budget fitting. Default: core's `createTokenCounter({ model })`. */
  tokenCounter?: TokenCounter
  /** Where the middleware record what happens. Default: none. */
  trace?: Trace
  /** Data for the middleware and tools (`turn.vars`, e.g. preload's `contexts`). Default `{}`. */
  vars?: Record<string, unknown>
  /**
   * Prompt-cache breakpoints. `'auto'`: each call marks, as `providerOptions.anthropic.cacheControl`,
   * the end of the stable system part, the newest message, the tool definitions when they reach
   * 1,024 tokens and the previous call's last message (the placement `runAgent` uses), in the
   * slots the caller's own markers leave (never more than four in all; the caller's are never
   * moved, changed or dropped). `'off'`: none of ours. Providers other than Anthropic ignore them.
   * Default `'auto'`.
   */
  cache?: CacheMode
}

/** What a transformed call remembers for `wrapGenerate`/`wrapStream`. */
export interface CallState {
  turn: TurnContext
  core: CorePrompt
  memory: RunMemory
  step: number
  /** The prefill sent as the trailing assistant message, if any. */
  prefill: string | undefined
  params: LanguageModelV4CallOptions
}

function runIdOf(params: LanguageModelV4CallOptions): string | undefined {
  const own = (params.providerOptions as Record<string, Record<string, unknown>> | undefined)
    ?.contextkit
  return typeof own?.runId === 'string' && own.runId !== '' ? own.runId : undefined
}

/** Ids of the system sections whose source system message carries the caller's cache marker. */
function callerMarkedSystem(core: CorePrompt): Set<string> {
  const ids = new Set<string>()
  for (const [id, options] of core.systemOptions) if (markerOf(options)) ids.add(id)
  return ids
}

/** What one call's turn is built from. */
interface TurnInput {
  model: ModelInfo
  core: ReturnType<typeof toCorePrompt>
  tools: ReturnType<typeof toCoreTools>
  memory: CallState['memory']
  step: number
}

/**
 * The call's turn: on a run's first call the middleware's `prepare` runs in order (and the
 * prepared turn is kept for the run); later calls reuse its sections over their own messages
 * and tools, without the first call's prefill.
 */
async function preparedTurn(
  o: ReturnType<typeof parseOptions>,
  { model, core, tools, memory, step }: TurnInput,
): Promise<TurnContext> {
  if (step === 1 || memory.prepared === undefined) {
    const start = createTurnContext({
      model,
      system: core.system,
      messages: core.messages,
      tools,
      vars: { ...o.vars },
    })
    const turn = await runPrepare(o.middleware, start, memory.run)
    memory.prepared = turn
    return turn
  }
  const { prefill: _first, ...prepared } = memory.prepared
  return { ...prepared, messages: core.messages, tools }
}

/**
 * contextkit's middleware inside the Vercel AI SDK's own loop: a `LanguageModelMiddleware` for
 * `wrapLanguageModel({ model, middleware })`, so `generateText`, `streamText` and agents built on
 * them get prefill, context-file hints, preloaded files, resumption and budget fitting without
 * moving to contextkit's loop.
 *
 * - `transformParams`: the AI SDK prompt becomes a core turn (system messages as stable sections,
 *   messages, tools); on the first call of a run the middleware's `prepare` runs in order (later
 *   calls of the run reuse its sections); the sections are fitted to the budget (an omission notice
 *   when something was left out); then back to the AI SDK prompt — system sections stable first,
 *   user sections in the last user message, the prefill as a trailing assistant message on the
 *   run's first call where the model takes one (the prefill middleware's fallback where not).
 * - `wrapGenerate`/`wrapStream`: a provider error is offered to the middleware's `recover` (a
 *   model that refuses the prefill is asked again without it); the reply runs through `finalize`
 *   in reverse order, so the prefill never reaches the caller's text nor `response.messages`, and
 *   the stream never shows it twice.
 *
 * A run is one `generateText`/`streamText` call: the model calls that share the conversation up to
 * the user's last words; its step is 1 plus the replies that follow them. Pass
 * `providerOptions: { contextkit: { runId } }` to name runs yourself.
 */
export function contextkitMiddleware(
  options: ContextkitMiddlewareOptions,
): LanguageModelV4Middleware {
  const o = parseOptions(options)
  const tracker = new RunTracker({
    ...(o.workspace === undefined ? {} : { workspace: o.workspace }),
    ...(o.trace === undefined ? {} : { trace: o.trace }),
  })
  const calls = new WeakMap<object, CallState>()
  const counters = new Map<string, TokenCounter>()

  const modelInfo = (model: LanguageModelV4): ModelInfo =>
    typeof o.model === 'object' ? o.model : getModelInfo(o.model ?? model.modelId)
  const counterFor = (info: ModelInfo): TokenCounter => {
    if (o.tokenCounter) return o.tokenCounter
    let c = counters.get(info.id)
    if (!c) {
      c = createTokenCounter({ model: info })
      counters.set(info.id, c)
    }
    return c
  }

  /** The params of `turn`, remembered for the wrap hooks. */
  function paramsFor(
    turn: TurnContext,
    base: Omit<CallState, 'turn' | 'prefill' | 'params'>,
    params: LanguageModelV4CallOptions,
  ): LanguageModelV4CallOptions {
    const fitted = fitTurn(turn, {
      counter: counterFor(turn.model),
      maxTokens: params.maxOutputTokens ?? turn.model.maxOutput,
      ...(o.budgetTokens === undefined ? {} : { budgetTokens: o.budgetTokens }),
    })
    const prefill = base.step === 1 && fitted.model.supportsPrefill ? fitted.prefill : undefined
    const cache = planCache({
      mode: o.cache,
      system: fitted.system,
      messages: fitted.messages,
      callerMarkedSystem: callerMarkedSystem(base.core),
      prompt: params.prompt as unknown as PromptMessage[],
      tools: params.tools,
      providerOptions: params.providerOptions,
      previousCount: base.step > 1 ? base.memory.sent : undefined,
      counter: counterFor(fitted.model),
    })
    base.memory.sent = fitted.messages.length
    const prompt = writeBack(
      fitted,
      base.core,
      prefill,
      cache.marks,
    ) as unknown as LanguageModelV4Prompt
    const tools = cache.tools as LanguageModelV4CallOptions['tools']
    const next: LanguageModelV4CallOptions = {
      ...params,
      prompt,
      ...(tools === undefined ? {} : { tools }),
    }
    calls.set(next, { ...base, turn: fitted, prefill, params: next })
    return next
  }

  return {
    specificationVersion: 'v4',

    async transformParams({ params, model }) {
      const core = toCorePrompt(params.prompt as unknown as PromptMessage[])
      const { memory, step } = tracker.locate(core.messages, runIdOf(params))
      const tools = toCoreTools(params.tools)
      const turn = await preparedTurn(o, { model: modelInfo(model), core, tools, memory, step })
      return paramsFor(turn, { core, memory, step }, params)
    },

    async wrapGenerate({ doGenerate, params, model }) {
      const state = calls.get(params)
      if (!state) return doGenerate()
      try {
        const result = await doGenerate()
        return await finalizeReply(o.middleware, result, state)
      } catch (error) {
        const retry = await recovered(error, state)
        if (!retry) throw error
        const result = await model.doGenerate(retry.params)
        return finalizeReply(o.middleware, result, retry)
      }
    },

    async wrapStream({ doStream, params, model }) {
      const state = calls.get(params)
      if (!state) return doStream()
      try {
        return finalizeStream(o.middleware, await doStream(), state)
      } catch (error) {
        const retry = await recovered(error, state)
        if (!retry) throw error
        return finalizeStream(o.middleware, await model.doStream(retry.params), retry)
      }
    },
  }

  /** The call to make instead when a middleware's `recover` takes the error, else `undefined`. */
  async function recovered(error: unknown, state: CallState): Promise<CallState | undefined> {
    const recovery = await runRecover(o.middleware, callError(error), state.turn, state.memory.run)
    if (!recovery) return undefined
    const base = { core: state.core, memory: state.memory, step: state.step }
    const params = paramsFor(recovery.turn, base, state.params)
    return calls.get(params)
  }
}
