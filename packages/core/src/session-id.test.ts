import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ValidationError } from './errors.js'
import { SessionIdSchema } from './session-entry-schemas.js'
import { assertSessionId, isSessionId } from './session-id.js'

// Ids near the rule's edges: the allowed alphabet with dots, separators and other characters
// mixed in, lengths around 200.
const near = fc.oneof(
  fc.string(),
  fc.stringMatching(/^[A-Za-z0-9._\-/\\ é]{0,12}$/),
  fc
    .integer({ min: 195, max: 205 })
    .chain((n) => fc.stringMatching(new RegExp(`^[a-z0-9.]{${n}}$`))),
)

describe('isSessionId and assertSessionId', () => {
  it('accept exactly what SessionIdSchema accepts, with its first message (property)', () => {
    fc.assert(
      fc.property(fc.oneof(near, fc.anything()), (value) => {
        const parsed = SessionIdSchema.safeParse(value)
        expect(isSessionId(value)).toBe(parsed.success)
        if (typeof value !== 'string') return
        let thrown: unknown
        try {
          assertSessionId(value, 'prop')
        } catch (error) {
          thrown = error
        }
        expect(thrown === undefined).toBe(parsed.success)
        if (!parsed.success) {
          expect(ValidationError.isInstance(thrown)).toBe(true)
          expect((thrown as ValidationError).issues[0]?.message).toBe(
            parsed.error.issues[0]?.message,
          )
        }
      }),
      { numRuns: 400 },
    )
  })

  it('refuse "..", separators and a length over 200', () => {
    expect(isSessionId('a..b')).toBe(false)
    expect(isSessionId('a/b')).toBe(false)
    expect(isSessionId('a'.repeat(200))).toBe(true)
    expect(isSessionId('a'.repeat(201))).toBe(false)
    expect(() => assertSessionId('a..b', 'f')).toThrow('session ids may not contain ".."')
  })
})
