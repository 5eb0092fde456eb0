import { assertArray, assertString, type Section, type TurnContext } from '@contextkit/core'

/** The heading the user's answers to the plan phase's questions go under (seed 002's name). */
export const USER_CONTEXT_HEADING = '## Additional Context from User'

/** Id of the user section that carries the user's answers to the plan phase's questions. */
export const USER_CONTEXT_SECTION_ID = 'plan:user-context'

/** A question the plan call asked, and the user's answer to it. */
export interface PlanClarification {
  /** The plan call's question. */
  question: string
  /** Why it asked (may be empty). */
  context: string
  /** What the user answered. */
  answer: string
}

/**
 * The `## Additional Context from User` user section: each question the plan call asked and the
 * user's answer, in the order asked. Rendered before the user's text, after the plan (request
 * only, like the plan), and `required`: budget fitting never drops what the user said.
 */
export function userContextSection(answers: readonly PlanClarification[]): Section {
  assertArray(answers, 'userContextSection', 'answers')
  const parts = answers.map((a, i) => {
    assertString(a?.question, 'userContextSection', `answers[${i}].question`)
    assertString(a?.answer, 'userContextSection', `answers[${i}].answer`)
    return `You asked: ${a.question.trim()}\nThe user answered: ${a.answer.trim()}`
  })
  return {
    id: USER_CONTEXT_SECTION_ID,
    text: `${USER_CONTEXT_HEADING}\n\n${parts.join('\n\n')}`,
    priority: 1_000_000,
    cache: 'volatile',
    placement: 'before',
    required: true,
  }
}

/**
 * `turn` with the user's answers as its first user section (replacing an earlier answers
 * section), or `turn` itself when there are none. @internal
 */
export function withUserContext(
  turn: TurnContext,
  answers: readonly PlanClarification[],
): TurnContext {
  if (answers.length === 0) return turn
  const rest = turn.userSections.filter((s) => s.id !== USER_CONTEXT_SECTION_ID)
  return { ...turn, userSections: [userContextSection(answers), ...rest] }
}
