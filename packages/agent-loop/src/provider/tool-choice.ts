import type { Section, TurnContext } from '@contextkit/core'
import type { Formatter } from '@contextkit/formatters'
import * as z from 'zod'

/**
 * Which tools the model may or must call in a reply: `'auto'` (it decides; the default),
 * `'any'` (at least one tool), `'none'` (no tool), or `{ tool: name }` (that tool).
 */
export type ToolChoice = 'auto' | 'any' | 'none' | { tool: string }

/** The check of a {@link ToolChoice} (the tool's name is checked against the run's tools apart). */
export const ToolChoiceSchema: z.ZodType<ToolChoice> = z.union([
  z.enum(['auto', 'any', 'none']),
  z.strictObject({ tool: z.string().min(1) }),
])

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

/** `choice` as the Anthropic Messages API's `tool_choice`. */
export function anthropicToolChoice(
  choice: ToolChoice,
): { type: 'auto' } | { type: 'any' } | { type: 'none' } | { type: 'tool'; name: string } {
  if (typeof choice === 'object') return { type: 'tool', name: choice.tool }
  return { type: choice }
}

/** `choice` as OpenAI chat completions' `tool_choice`. */
export function chatToolChoice(
  choice: ToolChoice,
): 'auto' | 'required' | 'none' | { type: 'function'; function: { name: string } } {
  if (typeof choice === 'object') return { type: 'function', function: { name: choice.tool } }
  return choice === 'any' ? 'required' : choice
}

/** `choice` as the AI SDK's `toolChoice` call option. */
export function aiSdkToolChoice(
  choice: ToolChoice,
): { type: 'auto' } | { type: 'required' } | { type: 'none' } | { type: 'tool'; toolName: string } {
  if (typeof choice === 'object') return { type: 'tool', toolName: choice.tool }
  return { type: choice === 'any' ? 'required' : choice }
}
