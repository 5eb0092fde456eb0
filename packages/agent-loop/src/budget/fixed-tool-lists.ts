// Tool definition lists that never change (issue 46): the loop's tools folder makes one frozen
// list per set of tools whose definitions are frozen through (`definitionsOf`) and records it here,
// so what counts or digests tool definitions may keep its answer for the list from run to run.
import type { ToolDefinition } from '@contextkit/core'

const fixed = new WeakSet<readonly ToolDefinition[]>()

/** Record `list` (frozen, its definitions frozen through) as never changing. */
export function markFixedToolList(list: readonly ToolDefinition[]): void {
  fixed.add(list)
}

/** Whether `list` was recorded by {@link markFixedToolList}: it and its definitions never change. */
export function isFixedToolList(list: readonly ToolDefinition[]): boolean {
  return fixed.has(list)
}
