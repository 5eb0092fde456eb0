import { describeError, type Message, type TurnContext } from '@contextkit/core'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import {
  type AsyncTokenCounter,
  isAsyncTokenCounter,
  type TokenCountPrepareInput,
  type TokenCountPrepareResult,
} from '../provider/token-count.js'
import { type RunTokenCounter, sectionBudget } from './budget.js'

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
