// Where the prompt-cache breakpoints of one request go: the one placement both loops use
// (agent-loop's `runAgent` with `cache: 'auto'`, `@contextkit/ai-sdk`'s middleware inside the AI
// SDK's loop). Pure: it decides, the caller writes the markers in its own request shape.
import { assertArray, assertObject, invalidArgument } from './errors.js'
import type { Message } from './message-schemas.js'
import type { Section } from './section-schema.js'

/** The API's limit on `cache_control` markers (breakpoints) per request. */
export const MAX_CACHE_MARKERS = 4

/** A loop's `cache` option: it places prompt-cache breakpoints (`auto`) or none of its own (`off`). */
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
  /**
   * Breakpoints the request already carries outside `messages`' own `cacheBreakpoint` and that
   * must stay where they are (a caller's markers on the system prompt, the tools or the request):
   * they take slots first, so the placement adds at most `MAX_CACHE_MARKERS - reserved`.
   * Default 0.
   */
  reserved?: number
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
 * Decide the prompt-cache breakpoints of one request. Never more than `MAX_CACHE_MARKERS`,
 * counting the one after the stable system part, those the messages already carry
 * (`Message.cacheBreakpoint`, set by the caller, middleware or saved history) and the `reserved`
 * ones placed elsewhere.
 *
 * `auto` fills the slots in this order (precedence):
 * 1. `stable-system`: after the stable system sections (the caller writes it there: agent-loop's
 *    formatter, the AI SDK middleware's stable system message);
 * 2. `last-message`: the request's last message, so the next call reads all of this one;
 * 3. `caller`: messages that carry their own `cacheBreakpoint`, newest first;
 * 4. `tools`: the last tool definition, when the definitions reach {@link TOOLS_CACHE_MIN_TOKENS};
 * 5. `previous-call`: the previous call's last message, which makes the read exact instead of
 *    relying on the API's look-back (20 blocks) from the new last message.
 *
 * `off` places none of its own: the messages' own breakpoints are kept (the newest four), and the
 * caller sends no system breakpoint of its own.
 */
export function placeCacheBreakpoints(input: PlaceCacheBreakpointsInput): CachePlacement {
  assertObject(input, 'placeCacheBreakpoints', 'input')
  assertArray(input.messages, 'placeCacheBreakpoints', 'input.messages')
  const { messages } = input
  const breakpoints: CacheBreakpoint[] = []
  const marked = new Set<number>()
  let tools = false
  const reserved = input.reserved ?? 0
  if (!Number.isSafeInteger(reserved) || reserved < 0) {
    invalidArgument('placeCacheBreakpoints', 'input.reserved', 'an integer ≥ 0', input.reserved)
  }
  const room = (): boolean => reserved + breakpoints.length < MAX_CACHE_MARKERS
  const mark = (index: number, reason: CacheBreakpointReason): void => {
    if (index < 0 || marked.has(index) || !room()) return
    marked.add(index)
    breakpoints.push({ at: 'message', reason, index })
  }
  const own: number[] = []
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.cacheBreakpoint) own.push(i)
  if (input.mode === 'auto') {
    if (input.stableSystem && room()) breakpoints.push({ at: 'system', reason: 'stable-system' })
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
  // only the marked messages and those with a breakpoint of their own can change: the rest of
  // the list is copied as it is, however long the history
  const out = [...messages]
  for (const i of new Set([...marked, ...own])) {
    const m = messages[i] as Message
    if (marked.has(i) === (m.cacheBreakpoint === true)) continue
    if (marked.has(i)) out[i] = { ...m, cacheBreakpoint: true }
    else {
      const { cacheBreakpoint: _dropped, ...rest } = m
      out[i] = rest
    }
  }
  return { messages: out, tools, breakpoints, dropped }
}
