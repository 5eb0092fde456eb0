/**
 * `POST /v1/messages` and `POST /v1/messages/count_tokens`.
 */
import { buildMessage } from './build-reply.js'
import { apiKeyOf } from './cache-model.js'
import type { Exchange } from './exchange.js'
import { defaultMessageForStatus, errorBody, errorTypeForStatus } from './http-errors.js'
import { mergeTurns, parseMessagesRequest, textOfBlocks } from './parse-request.js'
import { badRequest, type RequestProblem, sendProblem } from './request-problem.js'
import { messageEvents, sseFrame } from './stream-events.js'
import { COUNT_TOKENS_FIELDS, MESSAGES_FIELDS, strictProblem } from './strict.js'
import { betasOf, type ThreadTurn } from './threads.js'
import { requestTokens } from './token-rule.js'
import { validateMessagesRequest } from './validate-request.js'

const STATUS_FOR_TYPE: Record<string, number> = {
  overloaded_error: 529,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
}

/** The `count_tokens` answer for `body`: the count under the token rule, or why it is refused. */
function countTokens(x: Exchange, body: unknown): { problem: RequestProblem } | { tokens: number } {
  const strict = x.state.strict
    ? strictProblem(body, x.record.headers, COUNT_TOKENS_FIELDS, x.state.extraBetas)
    : undefined
  if (strict) return { problem: strict }
  const parsed = parseMessagesRequest(body, false)
  if (!parsed.ok) return { problem: badRequest(parsed.message) }
  if (!x.state.models.has(parsed.request.model)) {
    return { problem: { status: 404, message: `model: ${parsed.request.model}` } }
  }
  return { tokens: requestTokens(parsed.request) }
}

/**
 * Handles `POST /v1/messages/count_tokens`: `{ input_tokens }` under the token rule, equal to
 * `input_tokens + cache_creation_input_tokens + cache_read_input_tokens` of the same request.
 */
export function handleCountTokens(x: Exchange, body: unknown): void {
  const answer = countTokens(x, body)
  if ('problem' in answer) {
    sendProblem(x, answer.problem)
    return
  }
  const json = JSON.stringify({ input_tokens: answer.tokens })
  x.head(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
  x.res.end(json)
}

/** Handles `POST /v1/messages`, JSON or SSE; a `thread` is expanded first (see `threads.ts`). */
export async function handleMessages(x: Exchange, body: unknown): Promise<void> {
  const strict = x.state.strict
    ? strictProblem(body, x.record.headers, MESSAGES_FIELDS, x.state.extraBetas)
    : undefined
  if (strict) {
    sendProblem(x, strict)
    return
  }
  const begun = x.state.threads.begin(body, x.record.headers)
  if (!begun.ok) {
    sendProblem(x, begun.problem)
    return
  }
  const turn = begun.turn
  let kept = false
  try {
    kept = await answerMessages(x, begun.body, turn)
  } finally {
    if (turn && !kept) x.state.threads.abort(turn)
  }
}

/** Validates, scripts and sends one Messages reply; `true` when a thread turn was stored. */
async function answerMessages(
  x: Exchange,
  body: unknown,
  turn: ThreadTurn | undefined,
): Promise<boolean> {
  const parsed = parseMessagesRequest(body, true)
  if (!parsed.ok) {
    x.error(400, parsed.message)
    return false
  }
  const request = parsed.request
  const model = x.state.models.get(request.model)
  if (!model) {
    x.error(404, `model: ${request.model}`)
    return false
  }
  const merged = mergeTurns(request.messages)
  const problem =
    validateMessagesRequest(request, model, merged, betasOf(x.record.headers)) ??
    x.state.thinking.check(merged, request.thinking)
  if (problem) {
    sendProblem(x, problem)
    return false
  }
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
  if (!reply) return false
  if (!(await x.delayHeaders(reply))) {
    x.res.destroy()
    return false
  }
  if (x.httpFault(reply, errorTypeForStatus, defaultMessageForStatus)) return false
  const fault = reply.fault
  if (!request.stream && fault?.kind === 'reset') {
    x.reset()
    return false
  }
  if (!request.stream && fault?.kind === 'stream-error') {
    const type = fault.errorType ?? 'overloaded_error'
    x.error(STATUS_FOR_TYPE[type] ?? 500, fault.message ?? 'Overloaded', {}, type)
    return false
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
  x.state.thinking.record(message)
  // A thread keeps the whole reply or none of it: only a reply sent in full is stored.
  const keep = turn !== undefined && fault === undefined
  if (keep) x.state.threads.commit(turn, body, message)
  if (!request.stream) {
    const json = JSON.stringify(message)
    x.head(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
    await x.send([json], reply, 'end')
    return keep
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
  await x.send(frames, reply, then)
  return keep
}
