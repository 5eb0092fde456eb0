import type { Message, Section } from '@contextkit/core'
import { assertArray, assertObject } from '@contextkit/core'
import { MAX_CACHE_MARKERS } from '@contextkit/formatters'
import type { ProviderRequest } from '../provider/contract.js'

/** `runAgent`'s `cache` option: the loop places prompt-cache breakpoints (`auto`) or none (`off`). */
export type CacheMode = 'auto' | 'off'

/** The values of {@link CacheMode}. */
export const CACHE_MODES = Object.freeze(['auto', 'off'] as const satisfies readonly CacheMode[])

/**
 * With `cache: 'auto'`, tool definitions of at least this many tokens (the run's token counter)
 * get a breakpoint of their own. 1,024 is the smallest minimum cacheable length of any Claude
 * model: a breakpoint on a shorter prefix is ignored by the API, so it would only use up a slot.
 */
export const TOOLS_CACHE_MIN_TOKENS = 1024

/** Why a breakpoint is in a request (in precedence order, see {@link placeCacheBreakpoints}). */
export type CacheBreakpointReason =
  | 'stable-system'
  | 'last-message'
  | 'caller'
  | 'tools'
  | 'previous-call'

/** One breakpoint of a request: after the stable system part, the tools, or a message. */
export interface CacheBreakpoint {
  /** Where the breakpoint goes: after the stable system part, after the tools, or on a message. */
  at: 'system' | 'tools' | 'message'
  /** Why the breakpoint is there. */
  reason: CacheBreakpointReason
  /** Index in the request's messages (`at: 'message'`). */
  index?: number
}

/** Inputs of {@link placeCacheBreakpoints}. */
export interface PlaceCacheBreakpointsInput {
  /** The run's cache mode. */
  mode: CacheMode
  /** The request's messages (history, user turn, this run's replies and tool results), in order. */
  messages: readonly Message[]
  /**
   * Whether the rendered system prompt has a stable part: the formatter puts a breakpoint after
   * it (see `hasStableSystem`).
   */
  stableSystem: boolean
  /** Tokens of the native tool definitions (0 when the format writes tools into the prompt). */
  toolTokens: number
  /**
   * The last message of the previous call's request (the same object), if any: marking it again
   * makes this call read exactly the prefix the previous one wrote.
   */
  previous?: Message
}

/** Where one request's breakpoints go. */
export interface CachePlacement {
  /**
   * The messages to render: the same objects, except copies where `cacheBreakpoint` was set or
   * taken off (the caller's messages are never changed).
   */
  messages: Message[]
  /** Put a breakpoint on the last tool definition. */
  tools: boolean
  /** Every breakpoint the request carries, in precedence order (at most `MAX_CACHE_MARKERS`). */
  breakpoints: CacheBreakpoint[]
  /** Indexes of messages whose own `cacheBreakpoint` is not sent (no slot was left for it). */
  dropped: number[]
}

/**
 * Stable sections first, then volatile ones, each group in its given order, so the breakpoint
 * after the stable part never has volatile text before it, whichever middleware added what where.
 * Returns `sections` itself when it is already in that order.
 */
export function stableFirst(sections: readonly Section[]): readonly Section[] {
  assertArray(sections, 'stableFirst', 'sections')
  const firstVolatile = sections.findIndex((s) => s.cache !== 'stable')
  if (firstVolatile < 0) return sections
  if (!sections.slice(firstVolatile).some((s) => s.cache === 'stable')) return sections
  return [
    ...sections.filter((s) => s.cache === 'stable'),
    ...sections.filter((s) => s.cache !== 'stable'),
  ]
}

/**
 * Whether a chat formatter will mark the end of the stable system part: some stable section has
 * text, or the format writes tool definitions into the system prompt (`toolText`), which the
 * formatters put at the end of the stable part.
 */
export function hasStableSystem(system: readonly Section[], toolText?: string): boolean {
  return (toolText ?? '') !== '' || system.some((s) => s.cache === 'stable' && s.text !== '')
}

/**
 * Decide the prompt-cache breakpoints of one request. Never more than `MAX_CACHE_MARKERS`,
 * counting the one the formatter puts after the stable system part and those the messages
 * already carry (`Message.cacheBreakpoint`, set by the caller, middleware or saved history).
 *
 * `auto` fills the slots in this order (precedence):
 * 1. `stable-system`: after the stable system sections (placed by the formatter);
 * 2. `last-message`: the request's last message, so the next call reads all of this one;
 * 3. `caller`: messages that carry their own `cacheBreakpoint`, newest first;
 * 4. `tools`: the last tool definition, when the definitions reach {@link TOOLS_CACHE_MIN_TOKENS};
 * 5. `previous-call`: the previous call's last message, which makes the read exact instead of
 *    relying on the API's look-back (20 blocks) from the new last message.
 *
 * `off` places none of its own: the messages' own breakpoints are kept (the newest four), and the
 * caller strips the formatter's system breakpoint (`finishCacheMarkers`).
 */
export function placeCacheBreakpoints(input: PlaceCacheBreakpointsInput): CachePlacement {
  assertObject(input, 'placeCacheBreakpoints', 'input')
  assertArray(input.messages, 'placeCacheBreakpoints', 'input.messages')
  const { messages } = input
  const breakpoints: CacheBreakpoint[] = []
  const marked = new Set<number>()
  let tools = false
  const room = (): boolean => breakpoints.length < MAX_CACHE_MARKERS
  const mark = (index: number, reason: CacheBreakpointReason): void => {
    if (index < 0 || marked.has(index) || !room()) return
    marked.add(index)
    breakpoints.push({ at: 'message', reason, index })
  }
  const own: number[] = []
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.cacheBreakpoint) own.push(i)
  if (input.mode === 'auto') {
    if (input.stableSystem) breakpoints.push({ at: 'system', reason: 'stable-system' })
    mark(messages.length - 1, 'last-message')
    for (const i of own) mark(i, 'caller')
    if (input.toolTokens >= TOOLS_CACHE_MIN_TOKENS && room()) {
      tools = true
      breakpoints.push({ at: 'tools', reason: 'tools' })
    }
    if (input.previous !== undefined) mark(messages.lastIndexOf(input.previous), 'previous-call')
  } else {
    for (const i of own) mark(i, 'caller')
  }
  const dropped = own.filter((i) => !marked.has(i))
  let changed = false
  const out = messages.map((m, i) => {
    const want = marked.has(i)
    if (want === (m.cacheBreakpoint === true)) return m
    changed = true
    if (want) return { ...m, cacheBreakpoint: true }
    const { cacheBreakpoint: _dropped, ...rest } = m
    return rest
  })
  return { messages: changed ? out : [...messages], tools, breakpoints, dropped }
}

/**
 * After rendering: put the tools breakpoint on the last native tool definition, take the
 * formatter's system breakpoint off with `cache: 'off'`, and count what the request carries
 * (`cacheMarkersApplied`). Changes `request` in place (a fresh object from the formatter).
 * Returns the breakpoints the request really carries: none for a prompt-string format (ChatML,
 * completions), no `tools` one when the tools are not sent natively.
 */
export function finishCacheMarkers(
  request: ProviderRequest,
  mode: CacheMode,
  placement: CachePlacement,
): CacheBreakpoint[] {
  if (mode === 'off') for (const block of request.system) delete block.cache_control
  const tools = request.nativeTools
  const last = tools?.[tools.length - 1]
  const toolsMarked = tools !== undefined && last !== undefined && placement.tools
  if (toolsMarked) tools[tools.length - 1] = { ...last, cache_control: { type: 'ephemeral' } }
  request.cacheMarkersApplied = countCacheMarkers(request)
  if (request.cacheMarkersApplied === 0) return []
  return placement.breakpoints.filter((b) => b.at !== 'tools' || toolsMarked)
}

/** How many `cache_control` markers a request carries (tools, system, message blocks). */
export function countCacheMarkers(request: ProviderRequest): number {
  let n = 0
  for (const t of request.nativeTools ?? []) if (t.cache_control) n++
  for (const b of request.system) if (b.cache_control) n++
  for (const m of request.messages) {
    for (const b of m.content) {
      if (b.type !== 'thinking' && b.type !== 'redacted_thinking' && b.cache_control) n++
      if (b.type === 'tool_result') for (const c of b.content) if (c.cache_control) n++
    }
  }
  return n
}

/** What the loop remembers between the calls of one run for cache placement. */
export interface CacheState {
  readonly mode: CacheMode
  /** The last message of the previous call's request. */
  previous?: Message
  /** Whether the run already warned that some of the messages' own breakpoints were not sent. */
  warnedDropped: boolean
}
