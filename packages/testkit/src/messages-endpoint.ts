/**
 * `POST /v1/messages` and `POST /v1/messages/count_tokens`.
 */
import { buildMessage } from './build-reply.js'
import { apiKeyOf } from './cache-model.js'
import type { Exchange } from './exchange.js'
import { defaultMessageForStatus, errorBody, errorTypeForStatus } from './http-errors.js'
import { mergeTurns, parseMessagesRequest, textOfBlocks } from './parse-request.js'
import { messageEvents, sseFrame } from './stream-events.js'
import { requestTokens } from './token-rule.js'
import { validateMessagesRequest } from './validate-request.js'

const STATUS_FOR_TYPE: Record<string, number> = {
  overloaded_error: 529,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
}

/**
 * Handles `POST /v1/messages/count_tokens`: `{ input_tokens }` under the token rule, equal to
 * `input_tokens + cache_creation_input_tokens + cache_read_input_tokens` of the same request.
 */
export function handleCountTokens(x: Exchange, body: unknown): void {
  const parsed = parseMessagesRequest(body, false)
  if (!parsed.ok) {
    x.error(400, parsed.message)
    return
  }
  if (!x.state.models.has(parsed.request.model)) {
    x.error(404, `model: ${parsed.request.model}`)
    return
  }
  const json = JSON.stringify({ input_tokens: requestTokens(parsed.request) })
  x.head(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
  x.res.end(json)
}

/** Handles `POST /v1/messages`, JSON or SSE. */
export async function handleMessages(x: Exchange, body: unknown): Promise<void> {
  const parsed = parseMessagesRequest(body, true)
  if (!parsed.ok) return x.error(400, parsed.message)
  const request = parsed.request
  const model = x.state.models.get(request.model)
  if (!model) return x.error(404, `model: ${request.model}`)
  const merged = mergeTurns(request.messages)
  const problem = validateMessagesRequest(request, model, merged)
  if (problem) return x.error(400, problem)

  const last = merged[merged.length - 1]
  const lastUser = [...merged].reverse().find((m) => m.role === 'user')
  const prefill = last?.role === 'assistant' ? textOfBlocks(last.content) : undefined
  const reply = await x.reply({
    endpoint: 'messages',
    model: request.model,
    messages: merged,
    system: textOfBlocks(request.system),
    prefill,
    lastUserText: lastUser ? textOfBlocks(lastUser.content) : '',
    stopSequences: request.stop_sequences,
    maxTokens: request.max_tokens,
    stream: request.stream,
    toolNames: request.tools.map((t) => t.name),
    body: request.raw,
    headers: x.record.headers,
  })
  if (!reply) return
  if (!(await x.delayHeaders(reply))) return void x.res.destroy()
  if (x.httpFault(reply, errorTypeForStatus, defaultMessageForStatus)) return
  const fault = reply.fault
  if (!request.stream) {
    if (fault?.kind === 'reset') return x.reset()
    if (fault?.kind === 'stream-error') {
      const type = fault.errorType ?? 'overloaded_error'
      return x.error(STATUS_FOR_TYPE[type] ?? 500, fault.message ?? 'Overloaded', {}, type)
    }
  }
  const cache = x.state.cache.account(request, merged, apiKeyOf(x.record.headers), x.id)
  const message = buildMessage(reply.blocks, reply.stopReason, reply.usage, {
    messageId: x.state.nextId('msg_01'),
    model: request.model,
    prefill,
    stopSequences: request.stop_sequences,
    inputTokens: cache.input_tokens,
    cache: x.state.cache.enabled ? cache : undefined,
    toolId: () => x.state.nextId('toolu_01'),
    signature: (thinking) => `sig_${Buffer.from(thinking.slice(0, 24)).toString('base64')}`,
  })
  if (!request.stream) {
    const json = JSON.stringify(message)
    x.head(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
    return x.send([json], reply, 'end')
  }
  const events = messageEvents(message, x.transport(reply).deltaChars)
  let frames = events.map(sseFrame)
  let then: 'end' | 'reset' = 'end'
  if (fault?.kind === 'stream-error') {
    frames = frames.slice(0, fault.afterEvents)
    const err = errorBody(
      fault.errorType ?? 'overloaded_error',
      fault.message ?? 'Overloaded',
      x.id,
    )
    frames.push(`event: error\ndata: ${JSON.stringify(err)}\n\n`)
  } else if (fault?.kind === 'reset') {
    frames = frames.slice(0, fault.afterEvents ?? 0)
    then = 'reset'
  }
  x.head(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
  x.res.flushHeaders()
  return x.send(frames, reply, then)
}
