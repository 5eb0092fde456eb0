import {
  fitSections,
  type Message,
  renderOmissionNotice,
  type TokenCounter,
  type ToolDefinition,
  type TurnContext,
} from '@contextkit/core'

/** Id of the system section that tells the model what budget fitting left out. */
export const OMISSION_NOTICE_ID = 'omission-notice'

/** How {@link fitTurn} budgets. */
export interface FitOptions {
  counter: TokenCounter
  /** The reply's `max_tokens`. */
  maxTokens: number
  /** Explicit section budget. */
  budgetTokens?: number
}

const messageCounts = new WeakMap<Message, number>()

function safe(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0
}

function messageTokens(m: Message, counter: TokenCounter): number {
  let n = messageCounts.get(m)
  if (n === undefined) {
    n = 0
    for (const b of m.content) {
      if (b.type === 'text') n += safe(counter.count(b.text))
      else if (b.type === 'thinking') n += safe(counter.count(b.thinking))
      else if (b.type === 'tool_call')
        n += safe(counter.count(`${b.name}${JSON.stringify(b.input)}`))
      else if (b.type === 'tool_result') {
        for (const c of b.content) n += c.type === 'text' ? safe(counter.count(c.text)) : 1000
      } else if (b.type === 'image') n += 1000
    }
    messageCounts.set(m, n)
  }
  return n
}

function toolTokens(tools: readonly ToolDefinition[], counter: TokenCounter): number {
  let n = 0
  for (const t of tools)
    n += safe(counter.count(`${t.name}\n${t.description}\n${JSON.stringify(t.inputSchema)}`))
  return n
}

/**
 * The turn with its system and user sections fitted together by core's `fitSections` into the
 * budget (default: context window − `maxTokens` − messages − tools), each kept section on its
 * side, and core's omission notice as a last, volatile system section when anything was left out.
 */
export function fitTurn(turn: TurnContext, o: FitOptions): TurnContext {
  const all = [...turn.system, ...turn.userSections]
  if (all.length === 0) return turn
  let used = o.maxTokens + toolTokens(turn.tools, o.counter)
  for (const m of turn.messages) used += messageTokens(m, o.counter)
  const budget = o.budgetTokens ?? Math.max(0, turn.model.contextWindow - used)
  const fit = fitSections(all, budget, o.counter)
  const userIds = new Set(turn.userSections.map((s) => s.id))
  const omitted = [...turn.omitted, ...fit.omissions]
  const system = fit.kept.filter((s) => !userIds.has(s.id))
  if (omitted.length > 0) {
    system.push({
      id: OMISSION_NOTICE_ID,
      text: renderOmissionNotice(omitted),
      priority: Number.MAX_SAFE_INTEGER,
      cache: 'volatile',
    })
  }
  return { ...turn, system, userSections: fit.kept.filter((s) => userIds.has(s.id)), omitted }
}
