import type { StopReason, Usage } from '@contextkit/core'
import type { ProviderEvent } from '../provider/contract.js'
import type { ProviderError } from '../provider/errors.js'
import { malformedError, streamError } from '../provider/http-errors.js'
import { PROVIDER_WARNINGS } from '../provider/warnings.js'

/**
 * `finish_reason` of an OpenAI chat completion → core stop reason: `stop` → `end_turn`,
 * `length` → `max_tokens`, `tool_calls` (and the older `function_call`) → `tool_use`,
 * `content_filter` → `refusal`. Another value reads as `end_turn` with a warning.
 */
export const CHAT_FINISH_REASONS: Readonly<Record<string, StopReason>> = Object.freeze({
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
})

/** What the chat server is called in error messages. */
export const CHAT_SERVER = 'chat completions server'

interface PendingCall {
  id: string
  name: string
  json: string
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The choice with index 0 (servers send only that one unless `n` > 1). */
function firstChoice(choices: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(choices)) return undefined
  for (const c of choices) if (isRecord(c) && (c.index ?? 0) === 0) return c
  return undefined
}

/** Usage of a chat chunk: `prompt_tokens` includes the cached ones, which core counts apart. */
function usageOf(raw: unknown): Partial<Usage> | undefined {
  if (!isRecord(raw)) return undefined
  const prompt = typeof raw.prompt_tokens === 'number' ? raw.prompt_tokens : undefined
  const output = typeof raw.completion_tokens === 'number' ? raw.completion_tokens : undefined
  const details = raw.prompt_tokens_details
  const cached =
    isRecord(details) && typeof details.cached_tokens === 'number' ? details.cached_tokens : 0
  const out: Partial<Usage> = {}
  if (prompt !== undefined) {
    out.input = Math.max(0, prompt - cached)
    out.cacheRead = cached
  }
  if (output !== undefined) out.output = output
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * Folds the chunks of a streamed chat completion (or one whole `chat.completion`) into provider
 * events: `delta.content` as text, `delta.reasoning_content` (or `reasoning`) as thinking, tool
 * calls assembled per `index` (id and name from their first chunk, arguments concatenated over any
 * number of chunks, several calls interleaved), usage, the finish reason. Calls end, in index order,
 * when the reply finishes; arguments that are not a JSON object end with a `parseError`.
 */
export class ChatAssembler {
  readonly #requestId: string | undefined
  readonly #calls = new Map<number, PendingCall>()
  #usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  #finish: string | undefined
  #thinking = false
  #response: { responseId?: string; responseModel?: string } = {}
  /** Set once the stream failed; nothing more is read. */
  error: ProviderError | undefined
  /** `[DONE]` arrived: the reply is whole. */
  complete = false

  constructor(requestId: string | undefined) {
    this.#requestId = requestId
  }

  /** A finish reason arrived (the usage chunk may still follow). */
  get finished(): boolean {
    return this.#finish !== undefined
  }

  /** One `data:` payload of the stream. */
  data(data: string): ProviderEvent[] {
    if (data.trim() === '[DONE]') {
      this.complete = true
      return []
    }
    let chunk: unknown
    try {
      chunk = JSON.parse(data)
    } catch {
      this.error = malformedError(`data: ${data}`, this.#requestId, CHAT_SERVER)
      return []
    }
    return this.chunk(chunk)
  }

  /** One parsed chunk, or a whole non-streamed `chat.completion` (its `message` read as one delta). */
  chunk(chunk: unknown): ProviderEvent[] {
    if (!isRecord(chunk)) {
      this.error = malformedError(`data: ${JSON.stringify(chunk)}`, this.#requestId, CHAT_SERVER)
      return []
    }
    if (chunk.error !== undefined) {
      this.error = streamError(chunk, this.#requestId, CHAT_SERVER)
      return []
    }
    const events: ProviderEvent[] = []
    if (typeof chunk.id === 'string') this.#response.responseId ??= chunk.id
    if (typeof chunk.model === 'string') this.#response.responseModel ??= chunk.model
    if (chunk.usage !== undefined && chunk.usage !== null) {
      const usage = usageOf(chunk.usage)
      if (usage) {
        this.#usage = { ...this.#usage, ...usage }
        events.push({ type: 'usage', usage })
      }
    }
    const choice = firstChoice(chunk.choices)
    if (choice === undefined) return events
    const delta = isRecord(choice.delta)
      ? choice.delta
      : isRecord(choice.message)
        ? choice.message
        : {}
    this.#delta(delta, events)
    if (typeof choice.finish_reason === 'string') this.#finish = choice.finish_reason
    return events
  }

  #delta(delta: Record<string, unknown>, events: ProviderEvent[]): void {
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (typeof reasoning === 'string' && reasoning !== '') {
      this.#thinking = true
      events.push({ type: 'thinking-delta', text: reasoning })
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.#endThinking(events)
      events.push({ type: 'text-delta', text: delta.content })
    }
    if (Array.isArray(delta.tool_calls)) {
      this.#endThinking(events)
      delta.tool_calls.forEach((raw, position) => {
        this.#toolCall(raw, position, events)
      })
    }
  }

  #endThinking(events: ProviderEvent[]): void {
    if (!this.#thinking) return
    this.#thinking = false
    events.push({ type: 'thinking-end' })
  }

  #toolCall(raw: unknown, position: number, events: ProviderEvent[]): void {
    if (!isRecord(raw)) return
    const index = typeof raw.index === 'number' ? raw.index : position
    const fn = isRecord(raw.function) ? raw.function : {}
    let call = this.#calls.get(index)
    if (!call) {
      const id = typeof raw.id === 'string' && raw.id !== '' ? raw.id : `call_${index}`
      const name = typeof fn.name === 'string' ? fn.name : ''
      call = { id, name, json: '' }
      this.#calls.set(index, call)
      events.push({ type: 'tool-call-start', id, name })
    } else if (call.name === '' && typeof fn.name === 'string') call.name = fn.name
    if (typeof fn.arguments === 'string' && fn.arguments !== '') {
      call.json += fn.arguments
      events.push({ type: 'tool-call-delta', id: call.id, partialJson: fn.arguments })
    }
  }

  /** The end of the reply: open thinking closed, each call ended with its input, then `finish`. */
  finish(requestId: string | undefined): ProviderEvent[] {
    const events: ProviderEvent[] = []
    this.#endThinking(events)
    for (const index of [...this.#calls.keys()].sort((a, b) => a - b)) {
      const call = this.#calls.get(index)!
      events.push(endCall(call))
    }
    const known = this.#finish === undefined ? undefined : CHAT_FINISH_REASONS[this.#finish]
    if (this.#finish !== undefined && known === undefined) {
      events.push({
        type: 'warning',
        code: PROVIDER_WARNINGS.chatUnknownFinishReason,
        message: `Unknown finish_reason ${JSON.stringify(this.#finish)} read as end_turn`,
      })
    }
    let stopReason: StopReason = known ?? 'end_turn'
    // some servers say `stop` even when the reply called tools
    if (stopReason === 'end_turn' && this.#calls.size > 0) stopReason = 'tool_use'
    events.push({
      type: 'finish',
      stopReason,
      usage: this.#usage,
      ...(requestId ? { requestId } : {}),
      ...this.#response,
    })
    return events
  }
}

function endCall(call: PendingCall): ProviderEvent {
  const text = call.json.trim() === '' ? '{}' : call.json
  try {
    const input: unknown = JSON.parse(text)
    if (isRecord(input)) return { type: 'tool-call-end', id: call.id, name: call.name, input }
    return {
      type: 'tool-call-end',
      id: call.id,
      name: call.name,
      input: {},
      parseError: `the arguments are JSON but not an object: ${text.slice(0, 200)}`,
    }
  } catch (error) {
    return {
      type: 'tool-call-end',
      id: call.id,
      name: call.name,
      input: {},
      parseError: `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}): ${text.slice(0, 200)}`,
    }
  }
}
