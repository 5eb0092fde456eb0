/**
 * Whether `value` is a contextkit error: it carries core's `Symbol.for('contextkit.error')`
 * marker (what `ContextkitError.isInstance` checks; read here directly so test-utils needs no
 * package of ours installed at the root).
 */
export function isContextkitError(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[Symbol.for('contextkit.error')] === true
  )
}

/**
 * What a fuzz property checks about one call of a public function given anything: it either
 * throws (or rejects with) a typed contextkit error, or it returns a value that `check` accepts.
 * `check` is required, so "did not crash" is never all a property asserts: it receives the
 * returned (awaited) value and asserts its shape with `expect` (it may be async, e.g. to close
 * what was returned). Any other throw fails the test.
 * `isTyped` narrows which errors count as typed (default: any contextkit error). Returns the
 * value, or `undefined` when a typed error was thrown.
 */
export async function onlyTypedErrors<T>(
  f: () => T | Promise<T>,
  check: (value: Awaited<T>) => void | Promise<void>,
  isTyped: (error: unknown) => boolean = isContextkitError,
): Promise<Awaited<T> | undefined> {
  let value: Awaited<T>
  try {
    value = await f()
  } catch (error) {
    if (!isTyped(error)) throw error
    return undefined
  }
  await check(value)
  return value
}
