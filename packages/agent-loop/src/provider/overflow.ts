import { assertObject } from '@contextkit/core'
import { ContextTooLongError, type ProviderError } from './errors.js'

/** The start of the Anthropic API's message for a prompt over the context window. */
const PROMPT_TOO_LONG = 'prompt is too long'

/** The OpenAI-style error code for a prompt over the context window. */
const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded'

/** llama.cpp `llama-server`'s error type for a request over the context size. */
const EXCEED_CONTEXT_SIZE = 'exceed_context_size_error'

/** Anthropic: `prompt is too long: N tokens > M maximum`. */
const ANTHROPIC_WORDING = /^prompt is too long: (\d+) tokens > (\d+) maximum\b/

/**
 * OpenAI and vLLM: `This model's maximum context length is M tokens. However, …` followed by
 * `your messages resulted in N tokens` (OpenAI), `you requested N tokens` (vLLM) or
 * `your request has N input tokens plus K 'max_tokens'` (newer vLLM).
 */
const MAXIMUM_CONTEXT_WORDING =
  /maximum context length is (\d+) tokens[.,] however,? (?:your messages resulted in (\d+) tokens|you requested (\d+) tokens|your request has (\d+) input tokens plus (\d+) 'max_tokens')/i

/** llama.cpp: `request (N tokens) exceeds the available context size (M tokens)`. */
const LLAMA_CPP_WORDING =
  /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/

/**
 * The context window an overflow error states, with the size of the refused request when the
 * server said it ({@link statedWindow}).
 */
export interface StatedWindow {
  /** The server's context window, in its tokens. */
  window: number
  /** How many tokens the refused request held (the prompt, plus `max_tokens` where counted). */
  requestTokens: number
}

/** Whether `error` is already a {@link ContextTooLongError} (by code: works across copies). */
function typed(error: ProviderError): boolean {
  return error.code === ContextTooLongError.code
}

type Inner = Record<string, unknown>

function innerError(body: unknown): Inner {
  if (typeof body !== 'object' || body === null) return {}
  const inner = (body as { error?: unknown }).error
  return typeof inner === 'object' && inner !== null ? (inner as Inner) : {}
}

/** The server's message: `error.message` (OpenAI, Anthropic, llama.cpp) or a top-level `message` (vLLM). */
function messageOf(body: unknown): string | undefined {
  const inner = innerError(body).message
  if (typeof inner === 'string') return inner
  if (typeof body !== 'object' || body === null) return undefined
  const top = (body as { message?: unknown }).message
  return typeof top === 'string' ? top : undefined
}

/** Whether the error's type or body code names `kind`. */
function named(error: ProviderError, kind: string): boolean {
  const inner = innerError(error.body)
  return error.errorType === kind || inner.code === kind || inner.type === kind
}

/**
 * Whether a provider error says the prompt is longer than the context window. Matched narrowly:
 * the OpenAI-style code `context_length_exceeded` or llama.cpp's `exceed_context_size_error` (as
 * the error type or in the body's `error`); an HTTP 400 `invalid_request_error` whose message
 * starts `prompt is too long` (the Anthropic API); an HTTP 400 whose message states the window
 * in the OpenAI/vLLM wording (`maximum context length is M tokens. However, …`); an HTTP 400 or
 * 500 in llama.cpp's wording (`request (N tokens) exceeds the available context size`). Any other
 * error is not.
 */
export function isContextTooLong(error: ProviderError): boolean {
  assertObject(error, 'isContextTooLong', 'error')
  if (typed(error)) return true
  if (named(error, CONTEXT_LENGTH_EXCEEDED) || named(error, EXCEED_CONTEXT_SIZE)) return true
  const message = messageOf(error.body)?.trimStart()
  if (message === undefined) return false
  if (error.status === 400 && error.errorType === 'invalid_request_error')
    if (message.startsWith(PROMPT_TOO_LONG)) return true
  if (error.status === 400 && MAXIMUM_CONTEXT_WORDING.test(message)) return true
  return (error.status === 400 || error.status === 500) && LLAMA_CPP_WORDING.test(message)
}

/** A positive safe integer from digits, or `undefined`. */
function count(digits: string | undefined): number | undefined {
  if (digits === undefined) return undefined
  const n = Number(digits)
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/** The window and request size when both are stated and the request is over the window. */
function consistent(window: number | undefined, tokens: number | undefined) {
  if (window === undefined || tokens === undefined || tokens <= window) return undefined
  return { window, requestTokens: tokens }
}

function fromMessage(message: string): StatedWindow | undefined {
  const anthropic = ANTHROPIC_WORDING.exec(message)
  if (anthropic) return consistent(count(anthropic[2]), count(anthropic[1]))
  const openAi = MAXIMUM_CONTEXT_WORDING.exec(message)
  if (openAi) {
    const window = count(openAi[1])
    const plus = count(openAi[4]) !== undefined && count(openAi[5]) !== undefined
    const tokens = plus
      ? Number(openAi[4]) + Number(openAi[5])
      : count(openAi[2] ?? openAi[3] ?? undefined)
    return consistent(window, tokens)
  }
  const llama = LLAMA_CPP_WORDING.exec(message)
  return llama ? consistent(count(llama[2]), count(llama[1])) : undefined
}

/** llama.cpp's numeric `n_ctx` and `n_prompt_tokens` fields. */
function fromFields(inner: Inner): StatedWindow | undefined {
  const { n_ctx: window, n_prompt_tokens: tokens } = inner
  if (typeof window !== 'number' || typeof tokens !== 'number') return undefined
  if (!Number.isSafeInteger(window) || !Number.isSafeInteger(tokens) || window <= 0)
    return undefined
  return consistent(window, tokens)
}

/**
 * The context window an overflow error states, or `undefined` when it states none (or states one
 * that does not hold together: a request that is not over it). Read from the Anthropic wording
 * (`prompt is too long: N tokens > M maximum`), the OpenAI and vLLM wordings
 * (`maximum context length is M tokens. However,` then `your messages resulted in N tokens`,
 * `you requested N tokens` or `your request has N input tokens plus K 'max_tokens'`),
 * llama.cpp's numeric `n_ctx` / `n_prompt_tokens` fields or its wording
 * (`request (N tokens) exceeds the available context size (M tokens)`). Only for errors
 * {@link isContextTooLong} accepts.
 */
export function statedWindow(error: ProviderError): StatedWindow | undefined {
  assertObject(error, 'statedWindow', 'error')
  if (typed(error)) {
    const { window, requestTokens } = error as ContextTooLongError
    if (window !== undefined && requestTokens !== undefined) return { window, requestTokens }
  }
  if (!isContextTooLong(error)) return undefined
  const fields = fromFields(innerError(error.body))
  if (fields) return fields
  const message = messageOf(error.body)
  return message === undefined ? undefined : fromMessage(message.trim())
}

/**
 * `error` as a {@link ContextTooLongError} (code `context_too_long`, not retryable) when
 * {@link isContextTooLong} says so, carrying the window the server stated
 * ({@link statedWindow}); any other error unchanged. Providers call it on every error they map,
 * so the loop sees one typed code whatever the API said.
 */
export function asContextTooLong(error: ProviderError): ProviderError {
  assertObject(error, 'asContextTooLong', 'error')
  if (typed(error) || !isContextTooLong(error)) return error
  const stated = statedWindow(error)
  return new ContextTooLongError(error.message, {
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.errorType === undefined ? {} : { errorType: error.errorType }),
    ...(error.requestId === undefined ? {} : { requestId: error.requestId }),
    ...(stated ?? {}),
    retryable: false,
    body: error.body,
    cause: error.cause ?? error,
    details: error.details,
  })
}
