import { invalidArgument } from './errors.js'

/**
 * How deep model-made JSON (a tool call's input) may nest: 64 levels of arrays and objects. Every
 * package holds to the same limit, so what a parser accepts, the formatters render, the loop
 * guard compares and the stores and traces write are the same values; deeper input is refused
 * where it comes in (a reply's call becomes an error result the model sees; a message or session
 * entry is a `ValidationError`), never a `RangeError` later.
 */
export const MAX_JSON_DEPTH = 64

/**
 * `true` when `value` nests arrays and objects more than `max` levels deep (default
 * {@link MAX_JSON_DEPTH}); a scalar has depth 0, `{}` depth 1. Walks with an explicit stack, so a
 * value of any depth is measured without recursion; stops as soon as the limit is passed (a
 * cycle is infinitely deep), and a value of more than a million objects and arrays counts as too
 * deep too, so the walk is bounded whatever the sharing.
 *
 * @throws ValidationError when `max` is not a number ≥ 0.
 */
export function exceedsJsonDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof max !== 'number' || !(max >= 0)) {
    invalidArgument('exceedsJsonDepth', 'max', 'a number ≥ 0', max)
  }
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }]
  let budget = 1_000_000
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as { value: unknown; depth: number }
    if (typeof v !== 'object' || v === null) continue
    if (depth + 1 > max || --budget < 0) return true
    const children = Array.isArray(v) ? v : Object.values(v)
    for (const child of children) {
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, depth: depth + 1 })
    }
  }
  return false
}
