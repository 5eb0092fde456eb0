/**
 * An OpenAI-compatible `POST /v1/completions` (text in, text out) for base-model formatters.
 * Uses the same script as `/v1/messages`: the reply's text blocks, joined, are the completion.
 */
import { findStop } from './build-reply.js'
import { type Exchange, retryHeaders } from './exchange.js'
import { defaultMessageForStatus, errorTypeForStatus } from './http-errors.js'
import { splitText } from './stream-events.js'
import { estimateTextTokens } from './tokens.js'

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Checks a completions body; returns the problem or the parsed fields. */
export function parseCompletionsRequest(body: unknown):
  | { ok: false; message: string }
  | {
      ok: true
      model: string
      prompt: string
      stop: string[]
      stream: boolean
      maxTokens: number | undefined
    } {
  if (!isRecord(body)) return { ok: false, message: 'body must be a JSON object' }
  if (typeof body.model !== 'string' || body.model === '')
    return { ok: false, message: 'model: a string is required' }
  const prompt =
    Array.isArray(body.prompt) && body.prompt.length === 1 ? body.prompt[0] : body.prompt
  if (typeof prompt !== 'string') return { ok: false, message: 'prompt: a string is required' }
  const rawStop = body.stop
  const stop =
    rawStop === undefined || rawStop === null ? [] : Array.isArray(rawStop) ? rawStop : [rawStop]
  if (!stop.every((s): s is string => typeof s === 'string')) {
    return { ok: false, message: 'stop: a string or a list of strings is required' }
  }
  if (stop.length > 4) return { ok: false, message: 'stop: at most 4 sequences' }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    return { ok: false, message: 'stream: a boolean is required' }
  }
  const maxTokens = body.max_tokens
  if (
    maxTokens !== undefined &&
    maxTokens !== null &&
    (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)
  ) {
    return { ok: false, message: 'max_tokens: a positive integer is required' }
  }
  return {
    ok: true,
    model: body.model,
    prompt,
    stop,
    stream: body.stream === true,
    maxTokens: (maxTokens as number | undefined) ?? undefined,
  }
}

function openAiError(
  x: Exchange,
  status: number,
  message: string,
  type: string,
  headers: Record<string, string> = {},
): void {
  x.record.status = status
  const body = JSON.stringify({ error: { message, type, param: null, code: null } })
  x.res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'request-id': x.id,
  })
  x.res.end(body)
}

/** Handles `POST /v1/completions`. */
export async function handleCompletions(x: Exchange, body: unknown): Promise<void> {
  const parsed = parseCompletionsRequest(body)
  if (!parsed.ok) return openAiError(x, 400, parsed.message, 'invalid_request_error')
  const reply = await x.reply({
    endpoint: 'completions',
    model: parsed.model,
    messages: [],
    system: '',
    prefill: undefined,
    lastUserText: parsed.prompt,
    stopSequences: parsed.stop,
    maxTokens: parsed.maxTokens,
    stream: parsed.stream,
    toolNames: [],
    body: body as Record<string, unknown>,
    headers: x.record.headers,
  })
  if (!reply) return
  if (!(await x.delayHeaders(reply))) return void x.res.destroy()
  const f = reply.fault
  if (f?.kind === 'http') {
    return openAiError(
      x,
      f.status,
      f.message ?? defaultMessageForStatus(f.status),
      f.errorType ?? errorTypeForStatus(f.status),
      retryHeaders(f),
    )
  }
  if (f?.kind === 'reset' && !parsed.stream) return x.reset()
  let text = reply.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')
  let finish = 'stop'
  const hit = findStop(text, parsed.stop)
  if (hit) text = text.slice(0, hit.at)
  else if (parsed.maxTokens !== undefined && estimateTextTokens(text) > parsed.maxTokens) {
    text = text.slice(0, parsed.maxTokens * 4)
    finish = 'length'
  }
  const id = x.state.nextId('cmpl-')
  const created = 1_700_000_000
  const promptTokens = Math.max(1, estimateTextTokens(parsed.prompt))
  const completionTokens = estimateTextTokens(text)
  const base = { id, object: 'text_completion', created, model: parsed.model }
  if (!parsed.stream) {
    const body = {
      ...base,
      choices: [{ text, index: 0, logprobs: null, finish_reason: finish }],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    }
    const json = JSON.stringify(body)
    x.head(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
    return x.send([json], reply, 'end')
  }
  const t = x.transport(reply)
  const pieces = splitText(text, t.deltaChars)
  let frames = pieces.map(
    (p) =>
      `data: ${JSON.stringify({ ...base, choices: [{ text: p, index: 0, logprobs: null, finish_reason: null }] })}\n\n`,
  )
  frames.push(
    `data: ${JSON.stringify({ ...base, choices: [{ text: '', index: 0, logprobs: null, finish_reason: finish }] })}\n\n`,
  )
  const options = (body as { stream_options?: { include_usage?: unknown } }).stream_options
  if (options?.include_usage === true) {
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    }
    frames.push(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`)
  }
  frames.push('data: [DONE]\n\n')
  let then: 'end' | 'reset' = 'end'
  if (f?.kind === 'stream-error') {
    frames = frames.slice(0, f.afterEvents)
    frames.push(
      `data: ${JSON.stringify({ error: { message: f.message ?? 'Overloaded', type: f.errorType ?? 'overloaded_error' } })}\n\n`,
    )
  } else if (f?.kind === 'reset') {
    frames = frames.slice(0, f.afterEvents ?? 0)
    then = 'reset'
  }
  x.head(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
  x.res.flushHeaders()
  return x.send(frames, reply, then)
}
