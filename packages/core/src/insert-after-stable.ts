import { assertArray } from './errors.js'
import type { Section } from './sections.js'

/**
 * Insert `added` into a system prompt right after its last `stable` section (at the start when
 * there is none), returning a new array; `system` is not changed.
 *
 * This is where middleware put system text, stable or per-turn: the formatters cache the system
 * prompt up to and including its last `stable` section, so text inserted here never lands inside
 * the cached part (a `volatile` section there would change the cached prefix every turn) and a
 * `stable` section joins it. Sections keep their order: `added` in the given order, after the
 * sections already there.
 */
export function insertAfterStable(
  system: readonly Section[],
  added: readonly Section[],
): Section[] {
  assertArray(system, 'insertAfterStable', 'system')
  assertArray(added, 'insertAfterStable', 'added')
  let at = 0
  for (let i = 0; i < system.length; i++) if (system[i]!.cache === 'stable') at = i + 1
  return [...system.slice(0, at), ...added, ...system.slice(at)]
}
