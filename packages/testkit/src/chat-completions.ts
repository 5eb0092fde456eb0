/**
 * `POST /v1/chat/completions`, shaped like OpenAI's documented answers: a `chat.completion`
 * object, or `chat.completion.chunk` SSE frames ending in `data: [DONE]`. Scripts are the same as
 * for `/v1/messages` (the request is converted, see `chat-request.ts`): text blocks stream as
 * `delta.content`, thinking as `delta.reasoning_content` (as vLLM, llama.cpp and DeepSeek send
 * it), tool calls as `delta.tool_calls` with their arguments in pieces — several calls
 * interleaved by `index` — and usage (with `prompt_tokens_details.cached_tokens` from the cache
 * model, which caches the prompt's prefix automatically, as OpenAI does) in a last chunk when
 * `stream_options.include_usage` is set. Faults work as on `/v1/messages`.
 */
import { buildMessage } from './build-reply.js'
import { apiKeyOf } from './cache-model.js'
import { parseChatRequest } from './chat-request.js'
import { type Exchange, retryHeaders } from './exchange.js'
import { defaultMessageForStatus, errorTypeForStatus } from './http-errors.js'
import { mergeTurns, textOfBlocks } from './parse-request.js'
import { jsonFragments, splitText } from './stream-events.js'
import { requestTokens } from './token-rule.js'
import { chatRequestProblem } from './validate-chat.js'
import type { WireMessage, WireRequestMessage, WireStopReason } from './wire-types.js'

/** The `error.code` OpenAI sends for a prompt over the context window. */
export const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded'

const CREATED = 1_700_000_000

/** The `system_fingerprint` every answer carries (OpenAI's names the backend configuration). */
export const SYSTEM_FINGERPRINT = 'fp_contextkit'

/** Sends an OpenAI-style error body `{ error: { message, type, param, code } }`. */
function chatError(
  x: Exchange,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  headers: Record<string, string> = {},
  param: string | null = null,
): void {
  x.record.status = status
  const body = JSON.stringify({ error: { message, type, param, code } })
  x.res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': x.id,
  })
  x.res.end(body)
}

function finishReason(stop: WireStopReason | null): string {
  switch (stop) {
    case 'tool_use':
      return 'tool_calls'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'refusal':
      return 'content_filter'
    default:
      return 'stop'
  }
}

/** The request's last message with an automatic cache breakpoint (OpenAI caches prefixes on its own). */
function autoCached(merged: readonly WireRequestMessage[]): WireRequestMessage[] {
  const out = merged.map((m) => ({ ...m, content: [...m.content] }))
  const last = out[out.length - 1]
  const block = last?.content[last.content.length - 1]
  if (last && block) {
    last.content[last.content.length - 1] = { ...block, cache_control: { type: 'ephemeral' } }
  }
  return out
}

interface ChatUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details: { cached_tokens: number }
}

function chatUsage(message: WireMessage): ChatUsage {
  const u = message.usage
  const prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output_tokens,
    total_tokens: prompt + u.output_tokens,
    prompt_tokens_details: { cached_tokens: u.cache_read_input_tokens },
  }
}

/** The non-streaming `chat.completion` object for a reply. */
export function chatCompletionObject(message: WireMessage, id: string): Record<string, unknown> {
  const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  const reasoning = message.content.map((b) => (b.type === 'thinking' ? b.thinking : '')).join('')
  const calls = message.content.flatMap((b) =>
    b.type === 'tool_use'
      ? [
          {
            id: b.id,
            type: 'function',
            function: { name: b.name, arguments: JSON.stringify(b.input) },
          },
        ]
      : [],
  )
  return {
    id,
    object: 'chat.completion',
    created: CREATED,
    model: message.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          refusal: null,
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(message.stop_reason),
      },
    ],
    usage: chatUsage(message),
  }
}

/** Tool-call deltas: every call's first chunk (id, name), then argument pieces round-robin by call. */
function toolCallDeltas(message: WireMessage): Record<string, unknown>[] {
  const calls = message.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []))
  const pieces = calls.map((c) => jsonFragments(c.input).filter((p) => p !== ''))
  const deltas: Record<string, unknown>[] = calls.map((c, index) => ({
    tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
  }))
  const rounds = Math.max(0, ...pieces.map((p) => p.length))
  for (let r = 0; r < rounds; r++) {
    pieces.forEach((p, index) => {
      const piece = p[r]
      if (piece !== undefined)
        deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] })
    })
  }
  return deltas
}

/**
 * The `data:` frames of a streamed reply (without the `[DONE]` line), as OpenAI sends them: every
 * chunk with `system_fingerprint`; the first delta opens the turn (`content: null` when the reply
 * is tool calls only, `''` otherwise, `refusal: null`); with `include_usage`, every chunk before
 * the last has `usage: null` and the last carries the usage and no choice.
 */
export function chatChunkFrames(
  message: WireMessage,
  id: string,
  deltaChars: number,
  includeUsage: boolean,
): string[] {
  const base = {
    id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: message.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
  }
  const noUsage = includeUsage ? { usage: null } : {}
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...noUsage })}\n\n`
  const callsOnly =
    message.content.every((b) => b.type === 'tool_use') && message.content.length > 0
  const frames = [chunk({ role: 'assistant', content: callsOnly ? null : '', refusal: null })]
  for (const b of message.content) {
    if (b.type === 'thinking') {
      for (const p of splitText(b.thinking, deltaChars))
        frames.push(chunk({ reasoning_content: p }))
    } else if (b.type === 'text') {
      for (const p of splitText(b.text, deltaChars)) frames.push(chunk({ content: p }))
    }
  }
  for (const delta of toolCallDeltas(message)) frames.push(chunk(delta))
  frames.push(chunk({}, finishReason(message.stop_reason)))
  if (includeUsage) {
    frames.push(`data: ${JSON.stringify({ ...base, choices: [], usage: chatUsage(message) })}\n\n`)
  }
  return frames
}

/** Handles `POST /v1/chat/completions`. */
export async function handleChatCompletions(x: Exchange, body: unknown): Promise<void> {
  const parsed = parseChatRequest(body)
  if (!parsed.ok) return chatError(x, 400, parsed.message, 'invalid_request_error')
  const { request, includeUsage } = parsed.chat
  const model = x.state.models.get(request.model)
  if (!model) {
    return chatError(
      x,
      404,
      `The model \`${request.model}\` does not exist`,
      'invalid_request_error',
      'model_not_found',
    )
  }
  const merged = mergeTurns(request.messages)
  const tokens = requestTokens(request, merged)
  if (tokens > model.maxInputTokens) {
    const message = `This model's maximum context length is ${model.maxInputTokens} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`
    return chatError(x, 400, message, 'invalid_request_error', CONTEXT_LENGTH_EXCEEDED)
  }
  const problem = chatRequestProblem(parsed.chat.body, model)
  if (problem) {
    const { message, code, param } = problem
    return chatError(x, 400, message, 'invalid_request_error', code, {}, param)
  }
  const last = merged[merged.length - 1]
  const lastUser = [...merged].reverse().find((m) => m.role === 'user')
  const prefill = last?.role === 'assistant' ? textOfBlocks(last.content) : undefined
  const reply = await x.reply({
    endpoint: 'chat',
    model: request.model,
    messages: merged,
    system: textOfBlocks(request.system),
    prefill,
    lastUserText: lastUser ? textOfBlocks(lastUser.content) : '',
    stopSequences: request.stop_sequences,
    maxTokens: request.max_tokens,
    stream: request.stream,
    toolNames: request.tools.map((t) => t.name),
    body: parsed.chat.body,
    headers: x.record.headers,
  })
  if (!reply) return
  if (!(await x.delayHeaders(reply))) return void x.res.destroy()
  const f = reply.fault
  if (f?.kind === 'http') {
    const message = f.message ?? defaultMessageForStatus(f.status)
    const type = f.errorType ?? errorTypeForStatus(f.status)
    return chatError(x, f.status, message, type, null, retryHeaders(f))
  }
  if (!request.stream && f?.kind === 'reset') return x.reset()
  if (!request.stream && f?.kind === 'stream-error') {
    return chatError(x, 500, f.message ?? 'Overloaded', f.errorType ?? 'server_error')
  }
  const cached = autoCached(merged)
  const cache = x.state.cache.account(request, cached, apiKeyOf(x.record.headers), x.id)
  const message = buildMessage(reply.blocks, reply.stopReason, reply.usage, {
    messageId: x.state.nextId('chatcmpl-'),
    model: request.model,
    prefill,
    stopSequences: request.stop_sequences,
    inputTokens: cache.input_tokens,
    cache: x.state.cache.enabled ? cache : undefined,
    toolId: () => x.state.nextId('call_'),
    signature: () => '',
  })
  if (!request.stream) {
    const json = JSON.stringify(chatCompletionObject(message, message.id))
    x.head(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
    return x.send([json], reply, 'end')
  }
  let frames = chatChunkFrames(message, message.id, x.transport(reply).deltaChars, includeUsage)
  frames.push('data: [DONE]\n\n')
  let then: 'end' | 'reset' = 'end'
  if (f?.kind === 'stream-error') {
    frames = frames.slice(0, f.afterEvents)
    const error = { message: f.message ?? 'Overloaded', type: f.errorType ?? 'server_error' }
    frames.push(`data: ${JSON.stringify({ error })}\n\n`)
  } else if (f?.kind === 'reset') {
    frames = frames.slice(0, f.afterEvents ?? 0)
    then = 'reset'
  }
  x.head(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
  x.res.flushHeaders()
  return x.send(frames, reply, then)
}
