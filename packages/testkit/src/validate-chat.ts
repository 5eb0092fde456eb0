/**
 * The checks `POST /v1/chat/completions` makes, by OpenAI's rules rather than the Messages API's:
 * OpenAI takes a whitespace-only user message and an assistant message ending in a space, but
 * refuses a function name outside `^[a-zA-Z0-9_-]+$`, a `tool` message that answers no call, an
 * assistant's `tool_calls` left unanswered, a reply size over the model's, and `max_tokens` on a
 * reasoning model (which takes `max_completion_tokens`). The body's shape is checked before
 * (`chat-request.ts`).
 */
import type { ResolvedModel } from './models.js'

/** A refused chat request: OpenAI's message, and the `param` and `code` of its error body. */
export interface ChatProblem {
  message: string
  param: string | null
  code: string | null
}

/** The message OpenAI sends when a reasoning model gets `max_tokens`. */
export const UNSUPPORTED_MAX_TOKENS_MESSAGE =
  "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const problem = (message: string, param: string | null = null, code: string | null = null) => ({
  message,
  param,
  code,
})

/** The first of OpenAI's rules `body` breaks on `model`, or `undefined`. */
export function chatRequestProblem(
  body: Record<string, unknown>,
  model: ResolvedModel,
): ChatProblem | undefined {
  return tokensProblem(body, model) ?? toolsProblem(body.tools) ?? toolOrderProblem(body.messages)
}

function tokensProblem(
  body: Record<string, unknown>,
  model: ResolvedModel,
): ChatProblem | undefined {
  const hasMaxTokens = body.max_tokens !== undefined && body.max_tokens !== null
  if (model.reasoning && hasMaxTokens) {
    return problem(UNSUPPORTED_MAX_TOKENS_MESSAGE, 'max_tokens', 'unsupported_parameter')
  }
  const given = body.max_completion_tokens !== undefined && body.max_completion_tokens !== null
  const param = given ? 'max_completion_tokens' : 'max_tokens'
  const value = body[param]
  if (typeof value === 'number' && value > model.maxTokens) {
    return problem(
      `${param} is too large: ${value}. This model supports at most ${model.maxTokens} completion tokens, whereas you provided ${value}.`,
      param,
      'invalid_value',
    )
  }
  return undefined
}

function toolsProblem(tools: unknown): ChatProblem | undefined {
  if (!Array.isArray(tools)) return undefined
  for (let i = 0; i < tools.length; i++) {
    const fn = isRecord(tools[i]) ? (tools[i] as Record<string, unknown>).function : undefined
    const name = isRecord(fn) ? fn.name : undefined
    if (typeof name === 'string' && !FUNCTION_NAME.test(name)) {
      return problem(
        `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${i}].function.name`,
        'invalid_value',
      )
    }
  }
  return undefined
}

/** Each `tool` message answers a call of the assistant message before it, and every call is answered. */
function toolOrderProblem(messages: unknown): ChatProblem | undefined {
  if (!Array.isArray(messages)) return undefined
  let open: Set<string> | undefined
  for (let i = 0; i <= messages.length; i++) {
    const m = messages[i] as Record<string, unknown> | undefined
    if (m?.role === 'tool') {
      if (!open) {
        return problem(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        )
      }
      open.delete(String(m.tool_call_id))
      continue
    }
    if (open && open.size > 0) {
      return problem(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
        'messages',
      )
    }
    const calls = m?.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls : []
    open =
      calls.length > 0
        ? new Set(calls.map((c) => String((c as Record<string, unknown>).id)))
        : undefined
  }
  return undefined
}
