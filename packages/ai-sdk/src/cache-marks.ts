// Prompt-cache breakpoints inside the AI SDK's loop: core's placement (`@contextkit/core/cache`,
// the same decision agent-loop's `cache: 'auto'` makes) written as the AI SDK's per-message and
// per-tool `providerOptions.anthropic.cacheControl`, around the caller's own markers.
import type { Message, Section, TokenCounter } from '@contextkit/core'
import { type CacheMode, placeCacheBreakpoints } from '@contextkit/core/cache'
import { isRecord } from './is-record.js'
import type { Part, PromptMessage } from './prompt.js'

/** The marker this package writes: Anthropic's `cache_control` as the AI SDK spells it. */
export interface CacheControl {
  type: 'ephemeral'
  ttl?: '5m' | '1h'
}

/** Where one call's own breakpoints go (in the AI SDK prompt that `writeBack` renders). */
export interface CacheMarks {
  /** Mark the end of the stable system part (the last stable system message). */
  system: boolean
  /** Indexes of the turn's messages to mark (their last rendered AI SDK message). */
  messages: ReadonlySet<number>
  /** The marker to write. */
  control: CacheControl
}

/** The caller's own markers of one call: how many, and the longest TTL among them. */
export interface CallerMarkers {
  count: number
  /** `'1h'` when one of them asks for the 1-hour cache. */
  longest: '5m' | '1h'
}

type Options = Record<string, unknown> | undefined

/** The cache marker in a `providerOptions` object (any provider's namespace), if any. */
export function markerOf(options: unknown): Record<string, unknown> | undefined {
  if (!isRecord(options)) return undefined
  for (const ns of Object.values(options)) {
    if (!isRecord(ns)) continue
    const marker = ns.cacheControl ?? ns.cache_control
    if (isRecord(marker)) return marker
  }
  return undefined
}

/** Whether a prompt message or one of its parts already carries a cache marker. */
export function isMarked(m: PromptMessage): boolean {
  if (markerOf(m.providerOptions)) return true
  if (m.role === 'system') return false
  return m.content.some((p) => markerOf(p.providerOptions) || markerOf(outputOptions(p)))
}

function outputOptions(p: Part): Options {
  const output = p.output
  return isRecord(output) && isRecord(output.providerOptions) ? output.providerOptions : undefined
}

/**
 * The markers a call already carries, counted as the Anthropic provider counts them: the
 * request's own (`providerOptions.anthropic.cacheControl`, automatic caching), each marked tool,
 * each marked part, and a message's own marker (it goes on the message's last part) unless that
 * part carries one already.
 */
export function callerMarkers(
  prompt: readonly PromptMessage[],
  tools: unknown,
  providerOptions: unknown,
): CallerMarkers {
  const found: Record<string, unknown>[] = []
  const add = (marker: Record<string, unknown> | undefined): void => {
    if (marker) found.push(marker)
  }
  add(markerOf(providerOptions))
  if (Array.isArray(tools)) for (const t of tools) add(markerOf(isRecord(t) && t.providerOptions))
  for (const m of prompt) {
    if (m.role === 'system') {
      add(markerOf(m.providerOptions))
      continue
    }
    for (const p of m.content) add(markerOf(p.providerOptions) ?? markerOf(outputOptions(p)))
    const last = m.content.at(-1)
    const lastMarked = last && (markerOf(last.providerOptions) || markerOf(outputOptions(last)))
    if (!lastMarked) add(markerOf(m.providerOptions))
  }
  return { count: found.length, longest: found.some((f) => f.ttl === '1h') ? '1h' : '5m' }
}

/** `providerOptions` with the Anthropic cache marker set (the given object is not changed). */
function withMarker(options: Options, control: CacheControl): Record<string, unknown> {
  const anthropic = isRecord(options?.anthropic) ? options.anthropic : {}
  return { ...options, anthropic: { ...anthropic, cacheControl: { ...control } } }
}

/**
 * `m` with a cache marker on its end, or `undefined` when it cannot take one: it already carries
 * one (the caller's, left as it is), it has no content, or its last part is reasoning (the API
 * refuses `cache_control` on thinking).
 */
export function markedMessage(m: PromptMessage, control: CacheControl): PromptMessage | undefined {
  if (isMarked(m)) return undefined
  if (m.role === 'system')
    return { ...m, providerOptions: withMarker(m.providerOptions as Options, control) }
  const last = m.content.at(-1)
  if (last === undefined || last.type === 'reasoning') return undefined
  return { ...m, providerOptions: withMarker(m.providerOptions as Options, control) }
}

/**
 * `messages` with the end of `group` (the AI SDK messages one core message became) marked: the
 * last of them that can take a marker. Returns `group` itself when none can.
 */
export function markGroup(group: readonly PromptMessage[], control: CacheControl): PromptMessage[] {
  for (let i = group.length - 1; i >= 0; i--) {
    const m = group[i]!
    if (m.role !== 'system' && m.content.length === 0) continue
    const marked = markedMessage(m, control)
    if (!marked) return [...group]
    const out = [...group]
    out[i] = marked
    return out
  }
  return [...group]
}

/** What {@link planCache} decides from. */
export interface CachePlanInput {
  mode: CacheMode
  /** The fitted turn's system sections and messages. */
  system: readonly Section[]
  messages: readonly Message[]
  /** Section ids whose source system message carries the caller's own marker. */
  callerMarkedSystem: ReadonlySet<string>
  /** The caller's AI SDK prompt, tools and call-level provider options (for their own markers). */
  prompt: readonly PromptMessage[]
  tools: unknown
  providerOptions: unknown
  /** How many core messages the run's previous call sent (its last one is marked again). */
  previousCount: number | undefined
  counter: TokenCounter
}

/** One call's own breakpoints, and its tools with the last one marked when that is one of them. */
export interface CachePlan {
  marks: CacheMarks | undefined
  tools: unknown
}

/** Whether the stable system part has text and ends in a section the caller did not mark. */
function stableEndFree(system: readonly Section[], callerMarked: ReadonlySet<string>): boolean {
  const stable = system.filter((s) => s.cache === 'stable' && s.text !== '')
  const last = stable.at(-1)
  return last !== undefined && !callerMarked.has(last.id)
}

/** The function tools' definitions, as many tokens as the counter says their JSON is. */
function toolTokens(tools: unknown, counter: TokenCounter): number {
  if (!Array.isArray(tools) || tools.length === 0) return 0
  return counter.count(JSON.stringify(tools))
}

/** `tools` with the last one marked, or `tools` itself when it cannot take one. */
function markedTools(tools: unknown, control: CacheControl): unknown {
  if (!Array.isArray(tools)) return tools
  const last: unknown = tools.at(-1)
  if (!isRecord(last) || last.type !== 'function' || markerOf(last.providerOptions)) return tools
  return [
    ...tools.slice(0, -1),
    { ...last, providerOptions: withMarker(last.providerOptions as Options, control) },
  ]
}

/**
 * Where one call's own breakpoints go: core's `placeCacheBreakpoints` (the stable system part,
 * the newest message, large tool definitions, the previous call's last message), given the slots
 * the caller's own markers leave (they are never moved, changed or dropped). Our markers take the
 * longest TTL among the caller's, so the API's rule (longer TTLs before shorter ones) holds.
 */
export function planCache(input: CachePlanInput): CachePlan {
  if (input.mode === 'off') return { marks: undefined, tools: input.tools }
  const caller = callerMarkers(input.prompt, input.tools, input.providerOptions)
  const { previousCount, messages } = input
  const previous =
    previousCount !== undefined && previousCount > 0 ? messages[previousCount - 1] : undefined
  // the caller's own markers are `reserved`: they keep their slots and stay where they are; a
  // contextkit middleware's `Message.cacheBreakpoint` is placed as the loop places it
  const placement = placeCacheBreakpoints({
    mode: 'auto',
    messages,
    stableSystem: stableEndFree(input.system, input.callerMarkedSystem),
    toolTokens: toolTokens(input.tools, input.counter),
    reserved: caller.count,
    ...(previous === undefined ? {} : { previous }),
  })
  const control: CacheControl =
    caller.longest === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' }
  const indexes = new Set<number>()
  let system = false
  for (const b of placement.breakpoints) {
    if (b.at === 'system') system = true
    else if (b.at === 'message' && b.index !== undefined) indexes.add(b.index)
  }
  return {
    marks: { system, messages: indexes, control },
    tools: placement.tools ? markedTools(input.tools, control) : input.tools,
  }
}
