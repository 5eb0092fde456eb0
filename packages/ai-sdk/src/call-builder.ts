// One call of the middleware: the turn it is built from (prepared on a run's first call, reused
// after), its params for the wrapped model, and what the wrap hooks need to finish it.
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider'
import {
  createTokenCounter,
  createTurnContext,
  type ModelInfo,
  runPrepare,
  runRecover,
  type TokenCounter,
  type TurnContext,
} from '@contextkit/core'
import { markerOf, planCache } from './cache-marks.js'
import { callError } from './errors.js'
import { fitTurn } from './fit.js'
import type { ParsedOptions } from './options.js'
import type { CorePrompt, PromptMessage, toCoreTools } from './prompt.js'
import type { RunMemory } from './runs.js'
import { writeBack } from './write-back.js'

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

/** Ids of the system sections whose source system message carries the caller's cache marker. */
function callerMarkedSystem(core: CorePrompt): Set<string> {
  const ids = new Set<string>()
  for (const [id, options] of core.systemOptions) if (markerOf(options)) ids.add(id)
  return ids
}

/** What one call's turn is built from. */
export interface TurnInput {
  model: ModelInfo
  core: CorePrompt
  tools: ReturnType<typeof toCoreTools>
  memory: RunMemory
  step: number
}

/**
 * The call's turn: on a run's first call the middleware's `prepare` runs in order (and the
 * prepared turn is kept for the run); later calls reuse its sections over their own messages
 * and tools, without the first call's prefill.
 */
export async function preparedTurn(
  o: ParsedOptions,
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
 * Builds each call's params (the turn fitted to the budget, cache marks placed, the prompt written
 * back) and remembers what a call was built from for the wrap hooks (`stateOf`), which finalize
 * its reply or make it again after a middleware's `recover`.
 */
export class CallBuilder {
  readonly #calls = new WeakMap<object, CallState>()
  readonly #counters = new Map<string, TokenCounter>()
  readonly #o: ParsedOptions

  /** A builder for the calls of one `contextkitMiddleware`. */
  constructor(o: ParsedOptions) {
    this.#o = o
  }

  /** What the call with these params was built from; `undefined`: not one of ours. */
  stateOf(params: LanguageModelV4CallOptions): CallState | undefined {
    return this.#calls.get(params)
  }

  /** The params of `turn`, remembered for the wrap hooks. */
  build(
    turn: TurnContext,
    base: Omit<CallState, 'turn' | 'prefill' | 'params'>,
    params: LanguageModelV4CallOptions,
  ): LanguageModelV4CallOptions {
    const o = this.#o
    const fitted = fitTurn(turn, {
      counter: this.#counterFor(turn.model),
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
      counter: this.#counterFor(fitted.model),
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
    this.#calls.set(next, { ...base, turn: fitted, prefill, params: next })
    return next
  }

  /** The call to make instead when a middleware's `recover` takes the error, else `undefined`. */
  async recovered(error: unknown, state: CallState): Promise<CallState | undefined> {
    const { middleware } = this.#o
    const recovery = await runRecover(middleware, callError(error), state.turn, state.memory.run)
    if (!recovery) return undefined
    const base = { core: state.core, memory: state.memory, step: state.step }
    return this.stateOf(this.build(recovery.turn, base, state.params))
  }

  /** The counter for a model: the caller's, or core's for that model (one per model id). */
  #counterFor(info: ModelInfo): TokenCounter {
    if (this.#o.tokenCounter) return this.#o.tokenCounter
    let counter = this.#counters.get(info.id)
    if (!counter) {
      counter = createTokenCounter({ model: info })
      this.#counters.set(info.id, counter)
    }
    return counter
  }
}
