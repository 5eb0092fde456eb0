import { fitRequest, type TokenCounter, type TurnContext } from '@contextkit/core'

/** How {@link fitTurn} budgets. */
export interface FitOptions {
  counter: TokenCounter
  /** The reply's `max_tokens`. */
  maxTokens: number
  /** Explicit section budget. */
  budgetTokens?: number
}

/**
 * The turn with its system and user sections fitted by core's `fitRequest` (budget by default:
 * context window − `maxTokens` − messages − tools, as core estimates them), each kept section on
 * its side, and core's omission notice as a last, volatile system section when anything was left
 * out. A turn with no sections and nothing omitted is returned as it is.
 */
export function fitTurn(turn: TurnContext, o: FitOptions): TurnContext {
  if (turn.system.length + turn.userSections.length + turn.omitted.length === 0) return turn
  const fitted = fitRequest({
    system: turn.system,
    userSections: turn.userSections,
    omitted: turn.omitted,
    messages: turn.messages,
    tools: turn.tools,
    contextWindow: turn.model.contextWindow,
    maxTokens: o.maxTokens,
    ...(o.budgetTokens === undefined ? {} : { budgetTokens: o.budgetTokens }),
    counter: o.counter,
  })
  const { system, userSections, omitted } = fitted
  return { ...turn, system, userSections, omitted }
}
