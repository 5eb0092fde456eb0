import { assertString, invalidArgument, ValidationError } from './errors.js'

// The session id rule without zod, so that checking an id (stores, `sessionHeader`) does not
// bring classic zod into a bundle. `SessionIdSchema` (session-store.ts) is built from the same
// pattern and messages, and `session-id.test.ts` holds the two to each other with fast-check.

/** The pattern of a session id (the `..` rule is checked apart). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/
/** Why an id fails {@link SESSION_ID_PATTERN}. */
export const SESSION_ID_PATTERN_MESSAGE =
  'session ids are 1-200 characters of [A-Za-z0-9._-], starting alphanumeric'
/** Why an id with `..` in it is refused. */
export const SESSION_ID_DOTS_MESSAGE = 'session ids may not contain ".."'

/** The first reason `id` is not a session id, or `undefined` when it is one. */
function sessionIdProblem(id: string): string | undefined {
  if (!SESSION_ID_PATTERN.test(id)) return SESSION_ID_PATTERN_MESSAGE
  if (id.includes('..')) return SESSION_ID_DOTS_MESSAGE
  return undefined
}

/**
 * Whether `value` is a session id: 1–200 characters of `[A-Za-z0-9._-]`, starting with a letter
 * or digit, without `..` (what `SessionIdSchema` accepts).
 */
export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && sessionIdProblem(value) === undefined
}

/** Check a session id, throwing a {@link ValidationError} naming the caller when it is unsafe. */
export function assertSessionId(id: unknown, fn: string): asserts id is string {
  assertString(fn, 'assertSessionId', 'fn')
  if (typeof id !== 'string') invalidArgument(fn, 'id', 'a session id string', id)
  const message = sessionIdProblem(id)
  if (message !== undefined) {
    throw new ValidationError(`${fn}: unsafe session id ${JSON.stringify(id)}: ${message}`, [
      { path: 'id', message },
    ])
  }
}
