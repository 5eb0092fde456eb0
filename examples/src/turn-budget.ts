import {
  type FitResult,
  fitSections,
  type Message,
  renderOmissionNotice,
  renderSections,
  type Section,
  type TokenCounter,
  type TurnContext,
  textOf,
} from '@contextkit/core'

/** Id of the system section that tells the model what budget fitting left out. */
export const OMISSION_NOTICE_ID = 'omission-notice'

/** The turn after step 5, and how it got there. */
export interface FittedTurn {
  turn: TurnContext
  fit: FitResult
  budget: number
  /** The omission notice appended to the system prompt (`''` when nothing was left out). */
  notice: string
}

/**
 * The default section budget: the context window minus the reply's `maxTokens` and what the
 * conversation itself costs (text and tool payloads, counted with `counter`).
 */
export function defaultSectionBudget(
  turn: TurnContext,
  maxTokens: number,
  counter: TokenCounter,
): number {
  let history = 0
  for (const message of turn.messages) {
    history += counter.count(textOf(message))
    for (const block of message.content) {
      if (block.type === 'tool_call') history += counter.count(JSON.stringify(block.input))
      if (block.type === 'tool_result') history += counter.count(textOf(block.content))
    }
  }
  return Math.max(0, turn.model.contextWindow - maxTokens - history)
}

/**
 * Step 5: fit the system and user sections together with core `fitSections`, keep each kept
 * section on its side, and append core's omission notice (for `turn.omitted` plus what fitting
 * dropped or shortened) as the last, volatile system section.
 */
export function fitTurn(turn: TurnContext, budget: number, counter: TokenCounter): FittedTurn {
  const userIds = new Set(turn.userSections.map((s) => s.id))
  const fit = fitSections([...turn.system, ...turn.userSections], budget, counter)
  const omitted = [...turn.omitted, ...fit.omissions]
  const notice = omitted.length > 0 ? renderOmissionNotice(omitted) : ''
  const system: Section[] = fit.kept.filter((s) => !userIds.has(s.id))
  if (notice)
    system.push({ id: OMISSION_NOTICE_ID, text: notice, priority: 100, cache: 'volatile' })
  return {
    turn: {
      ...turn,
      system,
      userSections: fit.kept.filter((s) => userIds.has(s.id)),
      omitted,
    },
    fit,
    budget,
    notice,
  }
}

/**
 * The turn's messages with its user sections (context hint, preloaded files) rendered into the
 * current (last) user message, after the user's own text in the same text block, so every format
 * keeps a blank line between them. Returns new messages; the input is not mutated.
 */
export function messagesWithUserSections(turn: TurnContext): Message[] {
  const text = renderSections(turn.userSections)
  if (text === '') return turn.messages
  let index = -1
  turn.messages.forEach((m, i) => {
    if (m.role === 'user') index = i
  })
  const target = turn.messages[index]
  if (!target) return turn.messages
  const at = target.content.findIndex((b) => b.type === 'text')
  const content = [...target.content]
  const first = content[at]
  if (first?.type === 'text') content[at] = { type: 'text', text: `${first.text}\n\n${text}` }
  else content.push({ type: 'text', text })
  const out = [...turn.messages]
  out[index] = { ...target, content }
  return out
}
