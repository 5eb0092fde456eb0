// Whether a value still writes as the JSON it wrote before, without writing it again (issue 46:
// a tool call's input is compared on every run that resends it, and `JSON.stringify` of every
// input made a string per call per run). Conservative: anything `JSON.stringify` would write in a
// way the comparison does not follow (a class instance, `toJSON`, `undefined`, a non-finite
// number, a hole) answers `false`, and the caller counts the value again.
import { isPlainObject } from '@contextkit/core/check'

/** The JSON snapshot of `value` (what {@link sameJson} compares with); `undefined` when it has none. */
export function jsonSnapshot(value: unknown): unknown {
  try {
    const json = JSON.stringify(value)
    return json === undefined ? undefined : JSON.parse(json)
  } catch {
    return undefined // a cycle or a BigInt: never taken as unchanged
  }
}

/**
 * Whether `JSON.stringify(live)` is the text `was` (a {@link jsonSnapshot}) was parsed from: the
 * same keys in the same order, the same values. `false` when unsure, never `true` wrongly.
 */
export function sameJson(live: unknown, was: unknown): boolean {
  if (live === null || typeof live === 'string' || typeof live === 'boolean') return live === was
  if (typeof live === 'number') return Number.isFinite(live) && live === was
  if (typeof live !== 'object' || typeof was !== 'object' || was === null) return false
  if (Array.isArray(live)) {
    if (!Array.isArray(was) || live.length !== was.length) return false
    for (let i = 0; i < live.length; i++) {
      if (!(i in live) || !sameJson(live[i], was[i])) return false
    }
    return true
  }
  if (!isPlainObject(live) || Array.isArray(was)) return false
  const keys = Object.keys(was)
  let i = 0
  for (const key in live) {
    if (key !== keys[i]) return false
    if (!sameJson(live[key], (was as Record<string, unknown>)[key])) return false
    i++
  }
  return i === keys.length
}
