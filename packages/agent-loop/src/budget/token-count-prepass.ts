import {
  assertObject,
  describeError,
  type Message,
  type TokenCounter,
  type TurnContext,
} from '@contextkit/core'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { type RunTokenCounter, sectionBudget } from './budget.js'

/** What the loop hands an {@link AsyncTokenCounter} before fitting one request's sections. */
export interface TokenCountPrepareInput {
  /** The sections' texts as they would be sent (system and user sections). */
  texts: readonly string[]
  /** Their `shorter` forms, which fitting may swap in. */
  alternatives: readonly string[]
  /** The token budget the sections are fitted into. */
  budget: number
  /** The run's signal: stop counting when it aborts. */
  signal?: AbortSignal
}

/** What one {@link AsyncTokenCounter.prepare} did. */
export interface TokenCountPrepareResult {
  /** `true` when exact counts were fetched or already known for every text. */
  exact: boolean
  /** The texts' total as `count` answered it before the pass. */
  estimate: number
  /** The texts' total as `count` answers it now. */
  tokens: number
  /** Texts (of `texts` and `alternatives`) whose count `count` now answers differently. */
  counted: readonly string[]
  /** Requests made to the counting endpoint. */
  requests: number
  /** Problems (an unreachable endpoint): the estimate was used instead. */
  warnings: readonly { code: string; message: string }[]
}

/**
 * A core `TokenCounter` whose exact counts come from somewhere asynchronous (a provider's
 * token-counting endpoint). Core's `count` is synchronous, so it answers from what the counter
 * already knows — an exact count fetched earlier, else an estimate — and the agent loop awaits
 * `prepare` before each budget fitting: the counter decides there whether exact counts are worth
 * fetching for these texts (e.g. only when the estimate lands near the budget), fetches them, and
 * from then on `count` answers them exactly. `prepare` never rejects.
 * `anthropicTokenCounter` (`@contextkit/agent-loop/anthropic`) is one.
 */
export interface AsyncTokenCounter extends TokenCounter {
  /**
   * Count, before a request is built, what `count` will be asked for (the messages and the
   * sections that may fit), so `count` answers from its cache; falls back to the estimate with a
   * warning when counting fails.
   */
  prepare(input: TokenCountPrepareInput): Promise<TokenCountPrepareResult>
}

/** Whether `counter` has the asynchronous pre-pass of {@link AsyncTokenCounter}. */
export function isAsyncTokenCounter(counter: TokenCounter): counter is AsyncTokenCounter {
  assertObject(counter, 'isAsyncTokenCounter', 'counter')
  return typeof (counter as Partial<AsyncTokenCounter>).prepare === 'function'
}

/**
 * Run `counter.prepare`, never failing: a throw or rejection (a counter that broke its
 * contract) becomes a warning and a result that changed nothing.
 */
export async function safePrepare(
  counter: AsyncTokenCounter,
  input: TokenCountPrepareInput,
): Promise<TokenCountPrepareResult> {
  try {
    return await counter.prepare(input)
  } catch (error) {
    let estimate = 0
    for (const t of input.texts) {
      try {
        estimate += counter.count(t)
      } catch {
        // count must never throw; a broken one counts nothing
      }
    }
    return {
      exact: false,
      estimate,
      tokens: estimate,
      counted: [],
      requests: 0,
      warnings: [
        {
          code: AGENT_LOOP_WARNINGS.tokenCountFailed,
          message: `Token counter "${counter.id}" failed to prepare: ${describeError(error)}; the estimate is used`,
        },
      ],
    }
  }
}

/** What {@link prepareSectionCounts} needs of a model call. */
export interface SectionCountsInput {
  counter: RunTokenCounter
  turn: TurnContext
  extra: readonly Message[]
  maxTokens: number
  budgetTokens: number | undefined
  signal: AbortSignal
}

/**
 * The loop's asynchronous pre-pass before fitting one request's sections: when the run's token
 * counter is an {@link AsyncTokenCounter}, hand it the section texts (and their shorter forms)
 * with the budget they must fit, await it, and drop the memoized counts it changed. Returns
 * `undefined` for an ordinary counter (nothing to do).
 */
export async function prepareSectionCounts(
  input: SectionCountsInput,
): Promise<(TokenCountPrepareResult & { budget: number }) | undefined> {
  const counter = input.counter.counter
  if (!isAsyncTokenCounter(counter)) return undefined
  const { turn } = input
  const sections = [...turn.system, ...turn.userSections]
  const budget = sectionBudget({
    messages: turn.messages,
    extra: input.extra,
    tools: turn.tools,
    contextWindow: turn.model.contextWindow,
    maxTokens: input.maxTokens,
    ...(input.budgetTokens === undefined ? {} : { budgetTokens: input.budgetTokens }),
    counter: input.counter,
  })
  const result = await safePrepare(counter, {
    texts: sections.map((s) => s.text),
    alternatives: sections.flatMap((s) => s.shorter ?? []),
    budget,
    signal: input.signal,
  })
  input.counter.forget(result.counted)
  return { ...result, budget }
}
