/**
 * Request parameters the API checks: `temperature`, `thinking` (its type, per model, and
 * `budget_tokens`), `tool_choice` against thinking, and the custom tool definitions.
 */
import { acceptedThinkingTypes, THINKING_TYPES, type ThinkingType } from './model-capabilities.js'
import type { ResolvedModel } from './models.js'

/** Tool names the API accepts. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

/** The smallest `thinking.budget_tokens`. */
export const MIN_THINKING_BUDGET = 1_024

/** The API's message when `budget_tokens` is not below `max_tokens`. */
export const BUDGET_NOT_BELOW_MAX_TOKENS =
  '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size'

/** The API's message for a forced `tool_choice` while thinking is on. */
export const FORCED_TOOL_WITH_THINKING =
  'Thinking may not be enabled when tool_choice forces tool use.'

/** The beta that lets thinking span tool calls (its budget may then exceed `max_tokens`). */
const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function temperatureProblem(t: unknown): string | undefined {
  if (t === undefined || t === null) return undefined
  if (typeof t !== 'number' || !Number.isFinite(t))
    return 'temperature: Input should be a valid number'
  if (t < 0) return 'temperature: Input should be greater than or equal to 0'
  if (t > 1) return 'temperature: Input should be less than or equal to 1'
  return undefined
}

/** The thinking type a request sends, or a problem with its `thinking` object. */
function thinkingType(thinking: unknown): { type?: ThinkingType; problem?: string } {
  if (thinking === undefined || thinking === null) return {}
  if (!isRecord(thinking))
    return { problem: 'thinking: Input should be a valid dictionary or object' }
  const type = thinking.type
  if (!THINKING_TYPES.includes(type as ThinkingType)) {
    return {
      problem: `thinking: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${THINKING_TYPES.map((t) => `'${t}'`).join(', ')}`,
    }
  }
  if (type === 'enabled') {
    const budget = thinking.budget_tokens
    if (budget === undefined) return { problem: 'thinking.enabled.budget_tokens: Field required' }
    if (!Number.isInteger(budget)) {
      return { problem: 'thinking.enabled.budget_tokens: Input should be a valid integer' }
    }
    if ((budget as number) < MIN_THINKING_BUDGET) {
      return {
        problem: `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`,
      }
    }
  }
  return { type: type as ThinkingType }
}

function toolsProblem(tools: unknown): string | undefined {
  if (!Array.isArray(tools)) return undefined
  const names = new Set<string>()
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i] as Record<string, unknown>
    const custom = tool.type === undefined || tool.type === null || tool.type === 'custom'
    const name = tool.name as string
    if (custom) {
      if (!TOOL_NAME_PATTERN.test(name)) {
        return `tools.${i}.custom.name: String should match pattern '${TOOL_NAME_PATTERN.source}'`
      }
      if (tool.input_schema === undefined) return `tools.${i}.custom.input_schema: Field required`
      if (!isRecord(tool.input_schema)) {
        return `tools.${i}.custom.input_schema: Input should be a valid dictionary or object`
      }
    }
    if (names.has(name)) return 'tools: Tool names must be unique.'
    names.add(name)
  }
  return undefined
}

/**
 * The first parameter problem of a (structurally valid) request body for `model`, or
 * `undefined`. `betas` are the request's `anthropic-beta` values.
 */
export function paramsProblem(
  raw: Record<string, unknown>,
  model: ResolvedModel,
  betas: readonly string[],
): string | undefined {
  const temperature = temperatureProblem(raw.temperature)
  if (temperature) return temperature
  const thinking = thinkingType(raw.thinking)
  if (thinking.problem) return thinking.problem
  const tools = toolsProblem(raw.tools)
  if (tools) return tools
  const type = thinking.type
  if (type !== undefined && !acceptedThinkingTypes(model.thinkingMode)[type]) {
    return model.thinkingMode === 'adaptive-always' && type === 'disabled'
      ? `thinking.type: 'disabled' is not supported by ${model.id}: its thinking is always on`
      : `thinking.type: '${type}' is not supported by ${model.id}`
  }
  const maxTokens = raw.max_tokens
  const interleaved = betas.includes(INTERLEAVED_THINKING_BETA) && Array.isArray(raw.tools)
  if (
    type === 'enabled' &&
    typeof maxTokens === 'number' &&
    (raw.thinking as { budget_tokens: number }).budget_tokens >= maxTokens &&
    !interleaved
  ) {
    return BUDGET_NOT_BELOW_MAX_TOKENS
  }
  const thinkingOn =
    type === 'enabled' ||
    type === 'adaptive' ||
    (type === undefined && model.thinkingMode === 'adaptive-always')
  const choice = raw.tool_choice
  if (thinkingOn && isRecord(choice) && (choice.type === 'any' || choice.type === 'tool')) {
    return FORCED_TOOL_WITH_THINKING
  }
  return undefined
}
