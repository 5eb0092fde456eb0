import type { Section, TurnContext } from '@contextkit/core'
import type { Formatter } from '@contextkit/formatters'
import type { ToolChoice } from '../provider/tool-choice.js'

/** Id of the system section that states a forced tool choice in a text tool format. */
export const TOOL_CHOICE_SECTION_ID = 'tool-choice'

/** The sentence a text tool format gets for a forced choice (`'any'` or a named tool). */
export function toolChoiceInstruction(choice: 'any' | { tool: string }): string {
  return choice === 'any'
    ? 'In this reply, you must call at least one of the tools.'
    : `In this reply, you must call the tool "${choice.tool}".`
}

/**
 * The turn a formatter that writes tool definitions into the prompt (the XML transcript,
 * ChatML) renders for `choice`: `'none'` leaves the tools out of the prompt, `'any'` and a named
 * tool add a volatile system section saying so; `'auto'` changes nothing. Formats with native
 * tools get the choice as `ProviderRequest.toolChoice` instead, and a format without tools (base
 * models) is left as it is.
 */
export function textToolChoice(
  turn: TurnContext,
  choice: ToolChoice,
  formatter: Formatter,
): TurnContext {
  if (choice === 'auto' || turn.tools.length === 0) return turn
  if (formatter.formatToolDefinitions?.(turn.tools) === undefined) return turn
  if (choice === 'none') return { ...turn, tools: [] }
  const section: Section = {
    id: TOOL_CHOICE_SECTION_ID,
    text: toolChoiceInstruction(choice),
    priority: 1_000_000,
    cache: 'volatile',
    required: true,
  }
  return { ...turn, system: [...turn.system, section] }
}
