import type { StopReason, Usage } from '@contextkit/core'
import type { ProviderEvent } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'

/** AI SDK finish reasons (v2 strings, v3/v4 `unified`) → core stop reasons. */
export const AI_SDK_FINISH_REASONS: Readonly<Record<string, StopReason>> = Object.freeze({
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
})

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined

/** Usage of a `finish` part: spec v3/v4 objects (`inputTokens.noCache`, …) or v2 numbers. */
export function aiSdkUsage(raw: unknown): Usage {
  const usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  if (!isRecord(raw)) return usage
  const input = raw.inputTokens
  const output = raw.outputTokens
  if (isRecord(input)) {
    usage.cacheRead = num(input.cacheRead) ?? 0
    usage.cacheWrite = num(input.cacheWrite) ?? 0
    usage.input =
      num(input.noCache) ??
      Math.max(0, (num(input.total) ?? 0) - usage.cacheRead - usage.cacheWrite)
  } else {
    usage.cacheRead = num(raw.cachedInputTokens) ?? 0
    usage.input = Math.max(0, (num(input) ?? 0) - usage.cacheRead)
  }
  usage.output = isRecord(output) ? (num(output.total) ?? 0) : (num(output) ?? 0)
  return usage
}

/**
 * A thrown AI SDK error (`APICallError` and friends, or anything) as a {@link ProviderError}: the
 * HTTP status, the response body, `isRetryable`, and the error type the body names.
 */
export function aiSdkError(error: unknown): ProviderError {
  if (ProviderError.isInstance(error)) return error
  const e = isRecord(error) ? error : {}
  const status = num(e.statusCode)
  let body: unknown = e.data ?? e.responseBody
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body)
    } catch {
      // a plain-text body
    }
  }
  const inner = isRecord(body) && isRecord(body.error) ? body.error : undefined
  const errorType =
    (typeof inner?.code === 'string' && inner.code) ||
    (typeof inner?.type === 'string' && inner.type) ||
    (status === undefined ? 'ai_sdk_error' : `http_${status}`)
  const message = error instanceof Error ? error.message : String(error)
  const retryable =
    typeof e.isRetryable === 'boolean'
      ? e.isRetryable
      : status === undefined
        ? false
        : status === 429 || status >= 500
  return new ProviderError(
    `The AI SDK model failed${status ? ` (HTTP ${status})` : ''}: ${message}`,
    {
      cause: error,
      errorType,
      retryable,
      body,
      ...(status === undefined ? {} : { status }),
    },
  )
}

interface Call {
  id: string
  name: string
  started: boolean
}

/**
 * Maps the parts of an AI SDK `doStream` stream to provider events: text and reasoning deltas,
 * tool input streamed as `tool-input-*` parts and closed by the `tool-call` part (its `input` is
 * the JSON text), `finish` with usage and the finish reason; an `error` part ends the attempt.
 */
export class AiSdkPartMapper {
  readonly #calls = new Map<string, Call>()
  #thinking = false
  #signature: string | undefined
  #response: { responseId?: string; responseModel?: string } = {}
  /** The `finish` part arrived. */
  finished = false
  /** An `error` part arrived. */
  error: ProviderError | undefined

  map(part: unknown): ProviderEvent[] {
    if (!isRecord(part) || typeof part.type !== 'string') return []
    const events: ProviderEvent[] = []
    switch (part.type) {
      case 'text-delta': {
        const text = typeof part.delta === 'string' ? part.delta : part.textDelta
        if (typeof text === 'string' && text !== '') {
          this.#endThinking(events)
          events.push({ type: 'text-delta', text })
        }
        break
      }
      case 'reasoning-start': {
        // @ai-sdk/anthropic reports a redacted_thinking block as reasoning carrying its data
        const meta = part.providerMetadata
        const anthropic = isRecord(meta) && isRecord(meta.anthropic) ? meta.anthropic : undefined
        if (typeof anthropic?.redactedData === 'string') {
          this.#endThinking(events)
          events.push({ type: 'redacted-thinking', data: anthropic.redactedData })
        }
        break
      }
      case 'reasoning-delta':
        if (typeof part.delta === 'string' && part.delta !== '') {
          this.#thinking = true
          events.push({ type: 'thinking-delta', text: part.delta })
        }
        this.#noteSignature(part)
        break
      case 'reasoning-end':
        this.#noteSignature(part)
        this.#endThinking(events)
        break
      case 'tool-input-start':
        this.#start(String(part.id), String(part.toolName ?? ''), events)
        break
      case 'tool-input-delta': {
        const call = this.#calls.get(String(part.id))
        if (call && typeof part.delta === 'string' && part.delta !== '') {
          events.push({ type: 'tool-call-delta', id: call.id, partialJson: part.delta })
        }
        break
      }
      case 'tool-call':
        this.#endCall(part, events)
        break
      case 'response-metadata':
        if (typeof part.id === 'string') this.#response.responseId = part.id
        if (typeof part.modelId === 'string') this.#response.responseModel = part.modelId
        break
      case 'finish':
        this.finished = true
        this.#endThinking(events)
        events.push(this.#finish(part))
        break
      case 'error':
        this.error = aiSdkError(part.error)
        break
    }
    return events
  }

  #noteSignature(part: Record<string, unknown>): void {
    const meta = part.providerMetadata
    const anthropic = isRecord(meta) && isRecord(meta.anthropic) ? meta.anthropic : undefined
    if (typeof anthropic?.signature === 'string') this.#signature = anthropic.signature
  }

  #endThinking(events: ProviderEvent[]): void {
    if (!this.#thinking) return
    this.#thinking = false
    events.push({
      type: 'thinking-end',
      ...(this.#signature ? { signature: this.#signature } : {}),
    })
    this.#signature = undefined
  }

  #start(id: string, name: string, events: ProviderEvent[]): Call {
    let call = this.#calls.get(id)
    if (!call) {
      this.#endThinking(events)
      call = { id, name, started: true }
      this.#calls.set(id, call)
      events.push({ type: 'tool-call-start', id, name })
    }
    return call
  }

  #endCall(part: Record<string, unknown>, events: ProviderEvent[]): void {
    const call = this.#start(String(part.toolCallId), String(part.toolName ?? ''), events)
    const text = typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {})
    let input: unknown
    try {
      input = JSON.parse(text.trim() === '' ? '{}' : text)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      events.push({
        type: 'tool-call-end',
        id: call.id,
        name: call.name,
        input: {},
        parseError: `the input is not valid JSON (${reason})`,
      })
      return
    }
    if (!isRecord(input)) {
      events.push({
        type: 'tool-call-end',
        id: call.id,
        name: call.name,
        input: {},
        parseError: 'the input is not a JSON object',
      })
      return
    }
    events.push({ type: 'tool-call-end', id: call.id, name: call.name, input })
  }

  #finish(part: Record<string, unknown>): ProviderEvent {
    const reason = part.finishReason
    const unified = isRecord(reason) ? reason.unified : reason
    let stopReason: StopReason =
      (typeof unified === 'string' ? AI_SDK_FINISH_REASONS[unified] : undefined) ?? 'end_turn'
    if (stopReason === 'end_turn' && this.#calls.size > 0) stopReason = 'tool_use'
    return { type: 'finish', stopReason, usage: aiSdkUsage(part.usage), ...this.#response }
  }
}
