import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
} from '@ai-sdk/provider'
import { getModelInfo, type ModelInfo } from '@contextkit/core'
import { CallBuilder, preparedTurn } from './call-builder.js'
import { type ContextkitMiddlewareOptions, parseOptions } from './options.js'
import { type PromptMessage, toCorePrompt, toCoreTools } from './prompt.js'
import { finalizeReply, finalizeStream } from './reply.js'
import { RunTracker } from './runs.js'

/** The run id the caller named in `providerOptions.contextkit.runId`, if any. */
function runIdOf(params: LanguageModelV4CallOptions): string | undefined {
  const own = (params.providerOptions as Record<string, Record<string, unknown>> | undefined)
    ?.contextkit
  return typeof own?.runId === 'string' && own.runId !== '' ? own.runId : undefined
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
  const calls = new CallBuilder(o)
  const modelInfo = (model: LanguageModelV4): ModelInfo =>
    typeof o.model === 'object' ? o.model : getModelInfo(o.model ?? model.modelId)

  return {
    specificationVersion: 'v4',

    async transformParams({ params, model }) {
      const core = toCorePrompt(params.prompt as unknown as PromptMessage[])
      const { memory, step } = tracker.locate(core.messages, runIdOf(params))
      const tools = toCoreTools(params.tools)
      const turn = await preparedTurn(o, { model: modelInfo(model), core, tools, memory, step })
      return calls.build(turn, { core, memory, step }, params)
    },

    async wrapGenerate({ doGenerate, params, model }) {
      const state = calls.stateOf(params)
      if (!state) return doGenerate()
      try {
        const result = await doGenerate()
        return await finalizeReply(o.middleware, result, state)
      } catch (error) {
        const retry = await calls.recovered(error, state)
        if (!retry) throw error
        const result = await model.doGenerate(retry.params)
        return finalizeReply(o.middleware, result, retry)
      }
    },

    async wrapStream({ doStream, params, model }) {
      const state = calls.stateOf(params)
      if (!state) return doStream()
      try {
        return finalizeStream(o.middleware, await doStream(), state)
      } catch (error) {
        const retry = await calls.recovered(error, state)
        if (!retry) throw error
        return finalizeStream(o.middleware, await model.doStream(retry.params), retry)
      }
    },
  }
}
