import { assertObject, type TokenCounter } from '@contextkit/core'

// The contract of a token counter with an asynchronous pre-pass (a provider's counting endpoint).

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
