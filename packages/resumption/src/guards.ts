import { invalidArgument } from '@contextkit/core'

/** @internal An options argument: `undefined` (→ `{}`) or a non-null object. */
export function optionsOf<T extends object>(
  value: T | undefined,
  fn: string,
  param = 'options',
): T {
  if (value === undefined) return {} as T
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalidArgument(fn, param, 'an object')
  }
  return value
}

/** @internal A `SelfState`-shaped value (an object with a `verbatimAnchors` array). */
export function checkState(value: unknown, fn: string, param = 'state'): void {
  if (
    typeof value !== 'object' ||
    value === null ||
    !Array.isArray((value as { verbatimAnchors?: unknown }).verbatimAnchors)
  ) {
    invalidArgument(fn, param, 'a SelfState')
  }
}

/** @internal An array of strings. */
export function checkStrings(value: unknown, fn: string, param: string): void {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    invalidArgument(fn, param, 'an array of strings')
  }
}
