import { ValidationError } from '@contextkit/core'

/**
 * @internal Throw a `ValidationError` (a programming error, typed) instead of letting a wrong
 * argument type surface as a `TypeError` deep inside.
 */
export function invalidArgument(fn: string, param: string, expected: string): never {
  throw new ValidationError(`${fn}: ${param} must be ${expected}`, [
    { path: param, message: `expected ${expected}` },
  ])
}

/** @internal `value` is a string; `undefined` too when `optional`. */
export function checkString(
  value: unknown,
  fn: string,
  param: string,
  optional = false,
): asserts value is string {
  if (typeof value === 'string' || (optional && value === undefined)) return
  invalidArgument(fn, param, optional ? 'a string or undefined' : 'a string')
}

/** @internal `value` is an array of objects with a string `type` (content blocks). */
export function checkContent(value: unknown, fn: string, param: string): void {
  if (
    Array.isArray(value) &&
    value.every((b) => typeof b === 'object' && b !== null && typeof b.type === 'string')
  ) {
    return
  }
  invalidArgument(fn, param, 'an array of content blocks')
}

/** @internal `value` is an array of messages (objects with a role and a content array). */
export function checkMessages(value: unknown, fn: string, param: string): void {
  if (Array.isArray(value)) {
    const ok = value.every(
      (m) =>
        typeof m === 'object' &&
        m !== null &&
        (m.role === 'user' || m.role === 'assistant') &&
        Array.isArray(m.content),
    )
    if (ok) return
  }
  invalidArgument(fn, param, 'an array of messages')
}
