// The loop's side of prompt caching: what core's placement (`@contextkit/core/cache`) decided,
// written into a rendered provider request, and what a run remembers between its calls.
import type { Message, Section } from '@contextkit/core'
import type { CacheBreakpoint, CacheMode, CachePlacement } from '@contextkit/core/cache'
import type { ProviderRequest } from '../provider/contract.js'

/**
 * Whether a chat formatter will mark the end of the stable system part: some stable section has
 * text, or the format writes tool definitions into the system prompt (`toolText`), which the
 * formatters put at the end of the stable part.
 */
export function hasStableSystem(system: readonly Section[], toolText?: string): boolean {
  return (toolText ?? '') !== '' || system.some((s) => s.cache === 'stable' && s.text !== '')
}

/**
 * After rendering: put the tools breakpoint on the last native tool definition, take the
 * formatter's system breakpoint off with `cache: 'off'`, and count what the request carries
 * (`cacheMarkersApplied`): the formatter's own count (its contract: the markers it placed) with
 * these two changes, so the count does not walk the history. Changes `request` in place (a
 * fresh object from the formatter). Returns the breakpoints the request really carries: none
 * for a prompt-string format (ChatML, completions), no `tools` one when the tools are not sent
 * natively.
 */
export function finishCacheMarkers(
  request: ProviderRequest,
  mode: CacheMode,
  placement: CachePlacement,
): CacheBreakpoint[] {
  let applied = request.cacheMarkersApplied
  if (mode === 'off') {
    for (const block of request.system) {
      if (block.cache_control) applied--
      delete block.cache_control
    }
  }
  const tools = request.nativeTools
  const last = tools?.[tools.length - 1]
  const toolsMarked = tools !== undefined && last !== undefined && placement.tools
  if (toolsMarked) {
    if (!last.cache_control) applied++
    tools[tools.length - 1] = { ...last, cache_control: { type: 'ephemeral' } }
  }
  request.cacheMarkersApplied = applied
  if (applied === 0) return []
  return placement.breakpoints.filter((b) => b.at !== 'tools' || toolsMarked)
}

/** What the loop remembers between the calls of one run for cache placement. */
export interface CacheState {
  readonly mode: CacheMode
  /** The last message of the previous call's request. */
  previous?: Message
  /** Whether the run already warned that some of the messages' own breakpoints were not sent. */
  warnedDropped: boolean
}
