// Tool choice: the loop-wide value and its mapping to each API's `tool_choice`.
import * as c from '@contextkit/core/check'

/**
 * Which tools the model may or must call in a reply: `'auto'` (it decides; the default),
 * `'any'` (at least one tool), `'none'` (no tool), or `{ tool: name }` (that tool).
 */
export type ToolChoice = 'auto' | 'any' | 'none' | { tool: string }

/** The check of a {@link ToolChoice} (the tool's name is checked against the run's tools apart). */
export const ToolChoiceCheck: c.Check<ToolChoice> = /* @__PURE__ */ c.lazy(() =>
  c.union(c.literal('auto', 'any', 'none'), c.strictObject({ tool: c.string({ min: 1 }) })),
)

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
