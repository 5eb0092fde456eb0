import { invalidArgument } from '@contextkit/core'

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
