// The window a server states in its overflow refusal: each wording, and near misses that must not parse.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ContextTooLongError, ProviderError } from './errors.js'
import { httpError } from './http-errors.js'
import { asContextTooLong, isContextTooLong, statedWindow } from './overflow.js'

const anthropic = (message: string) =>
  new ProviderError('x', {
    status: 400,
    errorType: 'invalid_request_error',
    body: { type: 'error', error: { type: 'invalid_request_error', message } },
  })

/** What the OpenAI chat provider makes of an OpenAI 400 (`error.code` becomes the type). */
const openAi = (message: string, code: string | null = 'context_length_exceeded') =>
  new ProviderError('x', {
    status: 400,
    errorType: code ?? 'invalid_request_error',
    body: { error: { message, type: 'invalid_request_error', param: 'messages', code } },
  })

/** vLLM's body: `{ object: 'error', message, type: 'BadRequestError', code: 400 }`. */
const vllm = (message: string) =>
  httpError(
    'http://x',
    400,
    JSON.stringify({ object: 'error', message, type: 'BadRequestError', param: null, code: 400 }),
    undefined,
  )

const llamaCpp = (status: number, error: Record<string, unknown>) =>
  httpError('http://x', status, JSON.stringify({ error }), undefined)

const OPENAI = (m: number, n: number) =>
  `This model's maximum context length is ${m} tokens. However, your messages resulted in ${n} tokens. Please reduce the length of the messages.`
const VLLM = (m: number, n: number) =>
  `This model's maximum context length is ${m} tokens. However, you requested ${n} tokens (${n - 100} in the messages, 100 in the completion). Please reduce the length of the messages or completion.`
const VLLM_NEW = (m: number, n: number, k: number) =>
  `This model's maximum context length is ${m} tokens. However, your request has ${n} input tokens plus ${k} 'max_tokens'. Please reduce one or the other. (parameter=input_tokens, max_tokens, value=(${n}, ${k}))`
const LLAMA = (m: number, n: number) =>
  `request (${n} tokens) exceeds the available context size (${m} tokens), try increasing it`

describe('statedWindow', () => {
  test('Anthropic: prompt is too long: N tokens > M maximum', () => {
    const error = anthropic('prompt is too long: 24190 tokens > 20000 maximum')
    expect(statedWindow(error)).toEqual({ window: 20_000, requestTokens: 24_190 })
    const typed = asContextTooLong(error) as ContextTooLongError
    expect(ContextTooLongError.isInstance(typed)).toBe(true)
    expect(typed.window).toBe(20_000)
    expect(typed.requestTokens).toBe(24_190)
    expect(typed.details).toMatchObject({ window: 20_000, requestTokens: 24_190 })
    expect(statedWindow(typed)).toEqual({ window: 20_000, requestTokens: 24_190 })
  })

  test('OpenAI: maximum context length is M tokens. However, your messages resulted in N', () => {
    const error = asContextTooLong(openAi(OPENAI(8192, 9000))) as ContextTooLongError
    expect(error.code).toBe('context_too_long')
    expect(error.window).toBe(8192)
    expect(error.requestTokens).toBe(9000)
  })

  test('vLLM: … you requested N tokens (X in the messages, Y in the completion)', () => {
    const error = vllm(VLLM(4096, 4500))
    expect(isContextTooLong(error)).toBe(true)
    expect(statedWindow(error)).toEqual({ window: 4096, requestTokens: 4500 })
    expect(asContextTooLong(error).code).toBe('context_too_long')
  })

  test("vLLM, newer: … your request has N input tokens plus K 'max_tokens'", () => {
    // the prompt alone fits; with max_tokens it does not
    const error = vllm(VLLM_NEW(4096, 4000, 500))
    expect(isContextTooLong(error)).toBe(true)
    expect(statedWindow(error)).toEqual({ window: 4096, requestTokens: 4500 })
  })

  test('llama.cpp: exceed_context_size_error with n_ctx / n_prompt_tokens, status 400 or 500', () => {
    for (const status of [400, 500]) {
      const error = llamaCpp(status, {
        code: status,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 4390,
        n_ctx: 4096,
      })
      const typed = asContextTooLong(error) as ContextTooLongError
      expect(typed.code).toBe('context_too_long')
      expect(typed.retryable).toBe(false)
      expect(typed.window).toBe(4096)
      expect(typed.requestTokens).toBe(4390)
    }
  })

  test('llama.cpp: the wording alone, without the fields', () => {
    for (const status of [400, 500]) {
      const error = llamaCpp(status, { code: status, message: LLAMA(4096, 4390) })
      expect(isContextTooLong(error)).toBe(true)
      expect(statedWindow(error)).toEqual({ window: 4096, requestTokens: 4390 })
    }
  })

  test('near misses: overflow without a window, or no overflow at all', () => {
    // an overflow that states no window: classified, nothing learned
    const bare = llamaCpp(400, {
      message: 'the request exceeds the available context size. try increasing the context size',
      type: 'exceed_context_size_error',
    })
    expect(isContextTooLong(bare)).toBe(true)
    expect(statedWindow(bare)).toBeUndefined()
    // fields that are not numbers
    const strings = llamaCpp(400, {
      message: 'the request exceeds the available context size',
      type: 'exceed_context_size_error',
      n_ctx: '4096',
      n_prompt_tokens: '4390',
    })
    expect(statedWindow(strings)).toBeUndefined()
    // a request that is not over the window it states
    expect(statedWindow(anthropic('prompt is too long: 100 tokens > 20000 maximum'))).toBe(
      undefined,
    )
    expect(statedWindow(openAi(OPENAI(8192, 8000)))).toBeUndefined()
    // max_tokens over the output limit: not an overflow (and the numbers are not a window)
    const maxTokens = anthropic('max_tokens: 64001 > 64000, which is the maximum allowed')
    expect(isContextTooLong(maxTokens)).toBe(false)
    expect(statedWindow(maxTokens)).toBeUndefined()
    // vLLM's max_tokens refusal states the window, but it is a max_tokens problem
    const tooMuchOutput = vllm(
      "'max_tokens' is too large: 5000. This model's maximum context length is 4096 tokens and your request has 100 input tokens (5000 > 4096 - 100).",
    )
    expect(isContextTooLong(tooMuchOutput)).toBe(false)
    expect(statedWindow(tooMuchOutput)).toBeUndefined()
    // the wording in a 404 or a 503, or mid-sentence in another error, is not it
    expect(isContextTooLong(httpError('http://x', 404, OPENAI(4096, 5000), undefined))).toBe(false)
    expect(isContextTooLong(llamaCpp(503, { message: LLAMA(4096, 4390) }))).toBe(false)
    expect(isContextTooLong(vllm('maximum context length is 4096 tokens'))).toBe(false)
    expect(isContextTooLong(anthropic('the prompt is too long: 5 tokens > 4 maximum'))).toBe(false)
    // numbers past the safe integers are not a window
    const huge = anthropic(
      `prompt is too long: ${'9'.repeat(30)} tokens > ${'9'.repeat(20)} maximum`,
    )
    expect(isContextTooLong(huge)).toBe(true)
    expect(statedWindow(huge)).toBeUndefined()
  })

  test('property: every wording gives back the window exactly when the request is over it', () => {
    const wordings = [
      (m: number, n: number) => anthropic(`prompt is too long: ${n} tokens > ${m} maximum`),
      (m: number, n: number) => openAi(OPENAI(m, n)),
      (m: number, n: number) => vllm(VLLM(m, n)),
      (m: number, n: number) => vllm(VLLM_NEW(m, n - 1, 1)),
      (m: number, n: number) => llamaCpp(500, { message: LLAMA(m, n) }),
      (m: number, n: number) =>
        llamaCpp(400, { type: 'exceed_context_size_error', n_ctx: m, n_prompt_tokens: n }),
    ]
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: wordings.length - 1 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 101, max: 10_000_000 }),
        (which, window, tokens) => {
          const error = (wordings[which] as (m: number, n: number) => ProviderError)(window, tokens)
          expect(isContextTooLong(error)).toBe(true)
          const stated = statedWindow(error)
          if (tokens > window) expect(stated).toEqual({ window, requestTokens: tokens })
          else expect(stated).toBeUndefined()
        },
      ),
    )
  })
})
