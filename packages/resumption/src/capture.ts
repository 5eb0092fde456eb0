import {
  assertString,
  defaultTokenCounter,
  invalidArgument,
  isSpace,
  type TokenCounter,
  ValidationError,
} from '@contextkit/core'
import { checkState, optionsOf } from './guards.js'
import { stripInjected } from './injected-text.js'
import type { Anchor, SelfState } from './self-state.js'

/** Options of {@link captureStreamTail}. */
export interface CaptureOptions {
  /** Rough size of the tail, in tokens of `counter`. Default `100`. */
  tokens?: number
  /** Token counter. Default `defaultTokenCounter` from `@contextkit/core`. */
  counter?: TokenCounter
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

/**
 * The last ~`tokens` tokens of `text`, verbatim. The cut falls on a line boundary when one is near
 * the start of the tail, else on a word boundary; only a single word longer than the whole budget
 * is cut inside, and then never between the two halves of a surrogate pair. Trailing whitespace
 * is dropped. Returns `''` for empty text or a non-positive budget.
 */
export function captureStreamTail(text: string, options: CaptureOptions = {}): string {
  options = optionsOf(options, 'captureStreamTail')
  const counter = options.counter ?? defaultTokenCounter
  const budget = Math.floor(options.tokens ?? 100)
  if (typeof text !== 'string' || !(budget > 0)) return ''
  const t = text.trimEnd()
  if (t.length === 0) return ''
  if (counter.count(t) <= budget) return t.trimStart()
  // Smallest start whose suffix fits; `hi` always fits, `lo` never does.
  let lo = 0
  let hi = t.length
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1
    if (counter.count(t.slice(mid)) <= budget) hi = mid
    else lo = mid
  }
  let start = hi
  if (start < t.length && isLow(t.charCodeAt(start)) && isHigh(t.charCodeAt(start - 1))) start++
  if (!isSpace(t.charCodeAt(start - 1))) {
    const rest = t.length - start
    const newline = t.indexOf('\n', start)
    if (newline >= 0 && newline - start <= rest / 3) start = newline + 1
    else {
      let i = start
      while (i < t.length && !isSpace(t.charCodeAt(i))) i++
      if (i < t.length) start = i + 1
    }
  }
  return t.slice(start).trimStart()
}

/** Options of {@link addAnchor}. */
export interface AddAnchorOptions {
  /** Anchors kept, most recent last. Default `5`. */
  max?: number
  /** Longest anchor, in UTF-16 units; longer ones are cut at a word and end with `…`. Default `280`. */
  maxChars?: number
  /** Clock for `capturedAt` when the anchor has none. Default `Date.now`. */
  now?: () => number
  /** Texts resumption injected this run; echoes of them are removed from the anchor. */
  injected?: readonly string[]
}

/** An anchor to add; `triggerType` defaults to `manual`, `capturedAt` to now. */
export interface AnchorInput {
  /** The verbatim phrase. */
  raw: string
  /** What made it worth keeping (e.g. `insight`, `decision`). */
  triggerType?: string
  /** ISO time of capture. */
  capturedAt?: string
}

function capChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  let cut = maxChars - 1
  const space = text.lastIndexOf(' ', cut)
  if (space > cut / 2) cut = space
  let kept = text.slice(0, cut).trimEnd()
  // never ending in a high surrogate: its pair's other half (or nothing) was cut off
  while (kept.length > 0 && isHigh(kept.charCodeAt(kept.length - 1))) {
    kept = kept.slice(0, -1).trimEnd()
  }
  return `${kept}…`
}

/**
 * Return a new state with `anchor` appended as the most recent one. An equal anchor already kept
 * moves to the end instead of repeating; only the last `max` are kept; each is capped at
 * `maxChars`. The input state is not modified.
 *
 * @throws ValidationError when the anchor is empty (after removing injected text).
 */
export function addAnchor(
  state: SelfState,
  anchor: AnchorInput,
  options: AddAnchorOptions = {},
): SelfState {
  checkState(state, 'addAnchor')
  if (typeof anchor !== 'object' || anchor === null)
    invalidArgument('addAnchor', 'anchor', 'an object')
  assertString(anchor.raw, 'addAnchor', 'anchor.raw')
  if (anchor.triggerType !== undefined)
    assertString(anchor.triggerType, 'addAnchor', 'anchor.triggerType')
  if (anchor.capturedAt !== undefined)
    assertString(anchor.capturedAt, 'addAnchor', 'anchor.capturedAt')
  options = optionsOf(options, 'addAnchor')
  const max = Math.max(0, Math.floor(options.max ?? 5))
  const maxChars = Math.max(2, Math.floor(options.maxChars ?? 280))
  const now = options.now ?? Date.now
  const raw = capChars(stripInjected(anchor.raw, options.injected).trim(), maxChars)
  if (raw.length === 0) {
    throw new ValidationError('an anchor needs some text', [
      { path: 'raw', message: 'empty after trimming' },
    ])
  }
  const entry: Anchor = {
    raw,
    triggerType: anchor.triggerType?.trim() || 'manual',
    capturedAt: anchor.capturedAt ?? new Date(now()).toISOString(),
  }
  const kept = state.verbatimAnchors.filter((a) => a.raw !== raw)
  kept.push(entry)
  return { ...state, verbatimAnchors: max === 0 ? [] : kept.slice(-max) }
}

/** Options of {@link recordStreamTail}. */
export interface RecordTailOptions extends CaptureOptions {
  /** Session the text comes from. */
  sessionKey: string
  /** Texts resumption injected; echoes of them are never captured. Default none. */
  injected?: readonly string[]
  /** Clock. Default `Date.now`. */
  now?: () => number
  /** Working directory to record with the tail. */
  cwd?: string
  /** Git branch to record with the tail. */
  branch?: string
}

/**
 * Return a new state whose tail is captured from `text` (after removing injected text). When
 * nothing is left to capture, the previous tail is kept. The input state is not modified.
 */
export function recordStreamTail(
  state: SelfState,
  text: string,
  options: RecordTailOptions,
): SelfState {
  checkState(state, 'recordStreamTail')
  assertString(text, 'recordStreamTail', 'text')
  options = optionsOf(options, 'recordStreamTail')
  assertString(options.sessionKey, 'recordStreamTail', 'options.sessionKey')
  const counter = options.counter ?? defaultTokenCounter
  const now = options.now ?? Date.now
  const clean = stripInjected(text, options.injected)
  const raw = captureStreamTail(clean, { counter, tokens: options.tokens ?? 100 })
  const next: SelfState = { ...state, sessionId: options.sessionKey }
  // cwd and branch describe where the tail was captured, so they change only with the tail.
  if (raw.length === 0) return next
  if (options.cwd !== undefined) next.cwd = options.cwd
  else delete next.cwd
  if (options.branch !== undefined) next.branch = options.branch
  else delete next.branch
  next.streamTail = {
    raw,
    sessionKey: options.sessionKey,
    capturedAt: new Date(now()).toISOString(),
    tokenCount: counter.count(raw),
    counterId: counter.id,
  }
  return next
}
