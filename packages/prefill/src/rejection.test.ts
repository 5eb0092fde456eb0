import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isPrefillRejection } from './rejection.js'

const REJECTION_MESSAGE =
  'This model does not support assistant message prefill. The conversation must end with a user message.'

/** Shaped like @anthropic-ai/sdk's APIError / BadRequestError (status, headers, error body). */
class APIError extends Error {
  readonly status: number | undefined
  readonly headers: Headers
  readonly error: unknown
  readonly requestID: string | null
  constructor(status: number | undefined, error: unknown) {
    super(`${status ?? ''} ${JSON.stringify(error)}`.trim())
    this.name = status === 400 ? 'BadRequestError' : 'APIError'
    this.status = status
    this.headers = new Headers({ 'request-id': 'req_01' })
    this.error = error
    this.requestID = 'req_01'
  }
}

function body(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: 'req_01' }
}

describe('isPrefillRejection', () => {
  it('recognizes the SDK error for the prefill 400', () => {
    const error = new APIError(400, body('invalid_request_error', REJECTION_MESSAGE))
    expect(isPrefillRejection(error)).toBe(true)
  })

  it('recognizes the body a real HTTP 400 carries (loopback server, fetch, SDK-style error)', async () => {
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(400, { 'content-type': 'application/json', 'request-id': 'req_01' })
        res.end(JSON.stringify(body('invalid_request_error', REJECTION_MESSAGE)))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const res = await fetch(`http://127.0.0.1:${port}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'claude-sonnet-4-6',
          max_tokens: 16,
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Let me think.' },
          ],
        }),
      })
      // What the SDK does with a non-2xx JSON response: status + parsed body.
      const error = new APIError(res.status, (await res.json()) as unknown)
      expect(isPrefillRejection(error)).toBe(true)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('recognizes a body kept as `body`, and an error wrapped in a cause chain', () => {
    expect(
      isPrefillRejection({ status: 400, body: body('invalid_request_error', REJECTION_MESSAGE) }),
    ).toBe(true)
    const inner = new APIError(400, body('invalid_request_error', REJECTION_MESSAGE))
    const wrapped = new Error('provider failed', { cause: new Error('retry', { cause: inner }) })
    expect(isPrefillRejection(wrapped)).toBe(true)
  })

  it('rejects other statuses, other error types and other 400s', () => {
    expect(isPrefillRejection(new APIError(500, body('api_error', REJECTION_MESSAGE)))).toBe(false)
    expect(
      isPrefillRejection(new APIError(400, body('authentication_error', REJECTION_MESSAGE))),
    ).toBe(false)
    expect(
      isPrefillRejection(
        new APIError(
          400,
          body(
            'invalid_request_error',
            'messages: final assistant content cannot end with trailing whitespace',
          ),
        ),
      ),
    ).toBe(false)
    // A stream error event has no status.
    expect(
      isPrefillRejection(new APIError(undefined, body('invalid_request_error', REJECTION_MESSAGE))),
    ).toBe(false)
    // The message text alone, without the structured body, is not enough.
    expect(isPrefillRejection(new Error(REJECTION_MESSAGE))).toBe(false)
  })

  it('never throws, whatever it is given', () => {
    const cyclic: { cause?: unknown; status: number } = { status: 400 }
    cyclic.cause = cyclic
    expect(isPrefillRejection(cyclic)).toBe(false)
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof isPrefillRejection(value)).toBe('boolean')
        expect(isPrefillRejection({ status: 400, error: value })).toBe(
          isPrefillRejection({ status: 400, error: value }),
        )
      }),
    )
  })
})
