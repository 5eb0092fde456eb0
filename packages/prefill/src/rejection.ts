import * as z from 'zod'

const ErrorBodySchema = z.looseObject({
  type: z.literal('invalid_request_error'),
  message: z.string(),
})

const ApiErrorSchema = z.looseObject({
  status: z.literal(400),
  /** `@anthropic-ai/sdk`'s `APIError.error` is the parsed response body. */
  error: z.unknown().optional(),
  /** Other clients keep the parsed body as `body`. */
  body: z.unknown().optional(),
})

const EnvelopeSchema = z.looseObject({ error: ErrorBodySchema })

/** The wording the Anthropic API uses for this rejection (matched case-insensitively). */
const REJECTION_TEXT = 'does not support assistant message prefill'

function bodyRejects(body: unknown): boolean {
  const envelope = EnvelopeSchema.safeParse(body)
  const inner = envelope.success ? envelope.data.error : ErrorBodySchema.safeParse(body).data
  return inner?.message.toLowerCase().includes(REJECTION_TEXT) === true
}

/**
 * Whether `error` is the provider's "This model does not support assistant message prefill" 400:
 * HTTP status 400, error type `invalid_request_error`, and that message — the only signal the
 * API gives, so this is the one place contextkit reads an error's text. Accepts the
 * `@anthropic-ai/sdk` `APIError` (`status`, `error` = the response body), objects with the body in
 * `body`, and errors wrapping one of those in their `cause` chain (up to 5 levels).
 */
export function isPrefillRejection(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const api = ApiErrorSchema.safeParse(current)
    if (api.success && (bodyRejects(api.data.error) || bodyRejects(api.data.body))) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
