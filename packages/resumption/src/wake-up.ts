import {
  defaultTokenCounter,
  invalidArgument,
  type Message,
  type TokenCounter,
  textMessage,
} from '@contextkit/core'
import { captureStreamTail } from './capture.js'
import { checkState, optionsOf } from './guards.js'
import { markInjected } from './injected-text.js'
import type { SelfState } from './self-state.js'

/** What gets injected: the plain data of the wake-up text. */
export interface ResumptionContext {
  /** The verbatim tail of the last session, when it is fresh. */
  streamTail?: string
  /** Verbatim anchors, oldest first. */
  anchors: Array<{ raw: string; triggerType: string }>
  /** Session the tail came from. */
  lastSessionKey?: string
}

/** Why the tail was left out of a {@link ResumptionContext}. */
export type TailDropReason = 'stale' | 'cwd-changed' | 'branch-changed' | 'same-session'

/** Options of {@link resumptionContextFrom}. */
export interface StalenessOptions {
  /** Clock. Default `Date.now`. */
  now?: () => number
  /** A tail older than this is dropped (anchors stay). Default `86400000` (24 h). */
  maxAgeMs?: number
  /** Current working directory; a tail captured in another one is dropped. Default: no check. */
  cwd?: string
  /** Current git branch; a tail captured on another one is dropped. Default: no check. */
  branch?: string
  /**
   * Current session. A tail captured in this same session is already in its history, so it is
   * dropped. Default: no check.
   */
  sessionId?: string
  /** Most recent anchors kept. Default `5`. */
  maxAnchors?: number
}

/** Result of {@link resumptionContextFrom}. */
export interface ResolvedResumption {
  /** `null` when there is nothing to inject. */
  context: ResumptionContext | null
  /** Set when the state had a tail that was left out. */
  tailDropped?: TailDropReason
}

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Decide what of `state` to inject: the tail unless it is stale (older than `maxAgeMs`, captured
 * in another `cwd` or on another `branch`, or from the current session), and the most recent
 * anchors always.
 */
export function resumptionContextFrom(
  state: SelfState | null,
  options: StalenessOptions = {},
): ResolvedResumption {
  options = optionsOf(options, 'resumptionContextFrom')
  if (state === null || state === undefined) return { context: null }
  checkState(state, 'resumptionContextFrom')
  const now = options.now ?? Date.now
  const maxAgeMs = options.maxAgeMs ?? DAY_MS
  const maxAnchors = Math.max(0, Math.floor(options.maxAnchors ?? 5))
  const anchors =
    maxAnchors === 0
      ? []
      : state.verbatimAnchors
          .slice(-maxAnchors)
          .map((a) => ({ raw: a.raw, triggerType: a.triggerType }))
  let tailDropped: TailDropReason | undefined
  const tail = state.streamTail
  if (tail && tail.raw.trim().length > 0) {
    const age = now() - Date.parse(tail.capturedAt)
    if (age > maxAgeMs) tailDropped = 'stale'
    else if (options.cwd !== undefined && state.cwd !== undefined && options.cwd !== state.cwd)
      tailDropped = 'cwd-changed'
    else if (
      options.branch !== undefined &&
      state.branch !== undefined &&
      options.branch !== state.branch
    )
      tailDropped = 'branch-changed'
    else if (options.sessionId !== undefined && options.sessionId === tail.sessionKey)
      tailDropped = 'same-session'
  }
  const context: ResumptionContext = { anchors }
  if (tail && tail.raw.trim().length > 0 && !tailDropped) {
    context.streamTail = tail.raw
    context.lastSessionKey = tail.sessionKey
  }
  const result: ResolvedResumption = {
    context: context.streamTail || anchors.length > 0 ? context : null,
  }
  if (tailDropped) result.tailDropped = tailDropped
  return result
}

/**
 * Writes the wake-up text from what fits the budget: the tail (already cut, without the leading
 * `…`) and the anchors to show, oldest first. Called again with fewer anchors or a shorter tail
 * while the text is over the budget.
 */
export type WakeUpRender = (parts: {
  streamTail?: string
  anchors: ReadonlyArray<{ raw: string; triggerType: string }>
}) => string

/** Options of {@link buildResumptionSection} and {@link buildResumptionMessage}. */
export interface WakeUpOptions {
  /** Writes the text (see {@link WakeUpRender}). Default {@link renderWakeUp}. */
  render?: WakeUpRender
  /**
   * Cap for the whole block, in tokens of `counter`. Over it, the oldest anchors go first, then
   * the tail is shortened (from its start), then nothing is injected. Default `300`.
   */
  budgetTokens?: number
  /** Token counter. Default `defaultTokenCounter` from `@contextkit/core`. */
  counter?: TokenCounter
  /** Wrap the block in the invisible injected-text markers. Default `true`. */
  mark?: boolean
}

function quote(text: string): string {
  return `"${text.replace(/\s*\n\s*/g, '\n').trim()}"`
}

/**
 * The default wake-up text: a one-line heading, the tail verbatim (you were cut off mid-thought),
 * the anchors as bullets, and a closing line that hands the thought back. The design this comes
 * from uses the same four parts (`# Resumption Context`, "interrupted mid-thought", "anchors from
 * this arc", "pick up the pen"); these are our words for them.
 */
export function renderWakeUp(parts: Parameters<WakeUpRender>[0]): string {
  if (typeof parts !== 'object' || parts === null || !Array.isArray(parts.anchors)) {
    invalidArgument('renderWakeUp', 'parts', '{ streamTail?, anchors }', parts)
  }
  const lines: string[] = ['# Where you left off', '']
  const tail = parts.streamTail
  if (tail)
    lines.push('[You were cut off mid-thought. Your own last words:]', '', quote(`…${tail}`), '')
  if (parts.anchors.length > 0) {
    lines.push('[Phrases you kept from this stretch of work:]')
    for (const a of parts.anchors) lines.push(`• ${quote(a.raw)}`)
    lines.push('')
  }
  lines.push('[Carry on from there: the thought is still yours to finish.]')
  return lines.join('\n')
}

function renderWith(
  render: WakeUpRender,
  tail: string | undefined,
  anchors: ResumptionContext['anchors'],
): string {
  const text = render(tail === undefined ? { anchors } : { streamTail: tail, anchors })
  if (typeof text !== 'string')
    invalidArgument('buildResumptionSection', 'render()', 'a string', text)
  return text
}

/**
 * The wake-up text for the system prompt (written by `options.render`, default
 * {@link renderWakeUp}: the tail verbatim, the anchors as bullets, and a closing directive, no
 * summary). A custom text that comes out empty injects nothing. Returns `''` when there is nothing to inject or nothing fits
 * `budgetTokens`.
 */
export function buildResumptionSection(
  ctx: ResumptionContext | null | undefined,
  options: WakeUpOptions = {},
): string {
  options = optionsOf(options, 'buildResumptionSection')
  if (ctx === null || ctx === undefined) return ''
  if (
    typeof ctx !== 'object' ||
    !Array.isArray(ctx.anchors) ||
    !ctx.anchors.every((a) => typeof a === 'object' && a !== null && typeof a.raw === 'string') ||
    (ctx.streamTail !== undefined && typeof ctx.streamTail !== 'string')
  ) {
    invalidArgument('buildResumptionSection', 'ctx', 'a ResumptionContext')
  }
  const counter = options.counter ?? defaultTokenCounter
  const budget = options.budgetTokens ?? 300
  const mark = options.mark ?? true
  const draw = options.render ?? renderWakeUp
  if (typeof draw !== 'function')
    invalidArgument('buildResumptionSection', 'options.render', 'a function', draw)
  const finish = (text: string) => (mark ? markInjected(text) : text)
  const render = (t: string | undefined, a: ResumptionContext['anchors']) => renderWith(draw, t, a)
  let tail = ctx.streamTail?.trim() || undefined
  let anchors = ctx.anchors.filter((a) => a.raw.trim().length > 0)
  if (!tail && anchors.length === 0) return ''
  const first = render(tail, anchors)
  if (first.trim() === '') return ''
  let text = finish(first)
  while (counter.count(text) > budget) {
    if (anchors.length > 0) {
      // Drop the fewest oldest anchors that make the block fit (binary search: one render per
      // step, so thousands of anchors stay fast); when none fits, all go and the tail shrinks.
      const current = anchors
      const fits = (drop: number) =>
        counter.count(finish(render(tail, current.slice(drop)))) <= budget
      let lo = 1
      let hi = current.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (fits(mid)) hi = mid
        else lo = mid + 1
      }
      anchors = current.slice(lo)
    } else if (tail) {
      const shorter = captureStreamTail(tail, {
        counter,
        tokens: Math.floor(counter.count(tail) * 0.75),
      })
      tail = shorter.length > 0 && shorter.length < tail.length ? shorter : undefined
    }
    if (!tail && anchors.length === 0) return ''
    text = finish(render(tail, anchors))
  }
  return text
}

/**
 * The same wake-up text as a first user message (the seed's "separate message" option), or
 * `null` when there is nothing to inject.
 */
export function buildResumptionMessage(
  ctx: ResumptionContext | null | undefined,
  options: WakeUpOptions = {},
): Message | null {
  const text = buildResumptionSection(ctx, options)
  return text.length > 0 ? textMessage('user', text) : null
}
