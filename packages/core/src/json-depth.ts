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
  if (typeof value !== 'object' || value === null) return false
  if (max < 1) return true
  // the usual tool input, an object or array of scalars: answered without a stack
  if (!hasContainer(value)) return false
  // values and their depths, side by side (no object per entry: this runs on every build)
  const values: object[] = [value]
  const depths: number[] = [1]
  let budget = 1_000_000
  while (values.length > 0) {
    const v = values.pop() as object
    const depth = depths.pop() as number
    if (depth > max || --budget < 0) return true
    const children = Array.isArray(v) ? v : Object.values(v)
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        values.push(child)
        depths.push(depth + 1)
      }
    }
  }
  return false
}

/** Whether one of the values of `v` (an object or array) is an object or array. */
function hasContainer(v: object): boolean {
  if (Array.isArray(v)) {
    for (const child of v) if (typeof child === 'object' && child !== null) return true
    return false
  }
  const record = v as Record<string, unknown>
  for (const key in record) {
    const child = record[key]
    if (typeof child === 'object' && child !== null && Object.hasOwn(record, key)) return true
  }
  return false
}
