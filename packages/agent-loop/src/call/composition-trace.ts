import {
  digest,
  type Message,
  type RunInfo,
  type Section,
  type ToolDefinition,
  type TurnContext,
} from '@contextkit/core'
import { stableFirst } from '@contextkit/core/cache'
import type { FittedSections, RunTokenCounter } from '../budget/budget.js'
import type { AgentPhase } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { summaryOf } from '../session/summary-message.js'
import type { CallContext, CallSpec } from './call-types.js'

/** Version of the `agent:composition` record ({@link StepComposition}); readers check it. */
export const COMPOSITION_RECORD_VERSION = 1

/** What one part of a request is (see {@link CompositionPart}). */
export type CompositionPartKind =
  | 'system'
  | 'tools'
  | 'summary'
  | 'history'
  | 'tool-results'
  | 'user'
  | 'prefill'

/** One part of a request, in the order the request holds it. */
export interface CompositionPart {
  /** What the part is. */
  kind: CompositionPartKind
  /** The section id (`system`, `user`), else the kind itself. */
  id: string
  /** Tokens of the part, as the run's token counter counts them. */
  tokens: number
  /** Short digest of the part's content (sections, tools, summary): a change shows as a new digest. */
  digest?: string
  /** Messages (`history`, `tool-results`) or definitions (`tools`) in the part. */
  count?: number
  /** A system section's cache class. */
  cache?: 'stable' | 'volatile'
}

/**
 * The `agent:composition` trace record (version {@link COMPOSITION_RECORD_VERSION}): what filled
 * the model's window on one call, part by part, with the room reserved for the reply. One per
 * attempt of a call (a retried call records again under the same step).
 */
export interface StepComposition {
  /** The record's version ({@link COMPOSITION_RECORD_VERSION}). */
  v: typeof COMPOSITION_RECORD_VERSION
  /** The call's step (`0`: the plan call). */
  step: number
  /** The call's phase. */
  phase: AgentPhase
  /** The model's id. */
  model: string
  /** The model's context window (tokens). */
  window: number
  /** The token counter the numbers come from; `kind: 'exact'` numbers are the model's own. */
  counter: { id: string; kind: 'estimate' | 'exact' }
  /** Every part of the request, in request order. */
  parts: CompositionPart[]
  /** Tokens reserved for the reply (`maxTokens`). */
  reply: number
  /** Tokens of all parts. */
  total: number
  /** What the window leaves after the parts and the reply (negative: over the window). */
  free: number
  /**
   * Messages of the request, and how many leading ones are the very messages the run's previous
   * call sent (`same: null` on a run's first call): fewer than before means the history was
   * rewritten (compaction, history limit), which breaks a cached prefix.
   */
  messages: { count: number; same: number | null }
}

/** What {@link compositionOf} reads from one built request. */
export interface CompositionInput {
  step: number
  phase: AgentPhase
  model: string
  window: number
  maxTokens: number
  counter: RunTokenCounter
  fitted: FittedSections
  tools: readonly ToolDefinition[]
  /**
   * The request's messages, before rendering (history, user turn, this run's extra): a list, or
   * the turn's own list and this run's messages after it (then the turn's list is counted once
   * per run).
   */
  messages: readonly Message[] | MessageList
  prefill: string | undefined
  /** The run the call belongs to (keys the previous call's messages). */
  run: RunInfo
}

/** The previous call's messages of each run, to tell which leading messages are unchanged. */
const previousMessages = new WeakMap<RunInfo, MessageList>()
const toolDigests = new WeakMap<readonly ToolDefinition[], string>()

/** Message `i` of the request (`base` then `extra`). */
function messageAt(list: MessageList, i: number): Message | undefined {
  return i < list.base.length ? list.base[i] : list.extra[i - list.base.length]
}

/** How many messages the request holds. */
function countOf(list: MessageList): number {
  return list.base.length + list.extra.length
}

/**
 * Leading messages that are the same objects in both requests; when both begin with the same
 * list (the turn's, on every call of a run), only what follows it is compared.
 */
function samePrefix(a: MessageList, b: MessageList): number {
  if (a.base === b.base) {
    const n = Math.min(a.extra.length, b.extra.length)
    let i = 0
    while (i < n && a.extra[i] === b.extra[i]) i++
    return a.base.length + i
  }
  const n = Math.min(countOf(a), countOf(b))
  let i = 0
  while (i < n && messageAt(a, i) === messageAt(b, i)) i++
  return i
}

/** Index of the first message of the trailing tool results (after the last assistant message). */
function toolResultsStart(list: MessageList): number {
  const count = countOf(list)
  let i = count
  while (i > 0) {
    const m = messageAt(list, i - 1) as Message
    if (m.role !== 'user' || !m.content.some((b) => b.type === 'tool_result')) break
    i--
  }
  return i > 0 && messageAt(list, i - 1)?.role === 'assistant' ? i : count
}

function sectionPart(kind: 'system' | 'user', s: Section, counter: RunTokenCounter) {
  const part: CompositionPart = {
    kind,
    id: s.id,
    tokens: counter.text(s.text),
    digest: digest(s.text),
  }
  if (kind === 'system') part.cache = s.cache
  return part
}

function toolsPart(tools: readonly ToolDefinition[], counter: RunTokenCounter): CompositionPart {
  let d = toolDigests.get(tools)
  if (d === undefined) {
    d = digest(tools.map((t) => [t.name, t.description, t.inputSchema]))
    toolDigests.set(tools, d)
  }
  return {
    kind: 'tools',
    id: 'tools',
    tokens: counter.tools(tools),
    digest: d,
    count: tools.length,
  }
}

/** Tokens of `list[from..to)`, each message from the run's memo. */
function sumRange(list: readonly Message[], from: number, to: number, counter: RunTokenCounter) {
  let n = 0
  for (let i = from; i < to; i++) n += counter.message(list[i] as Message)
  return n
}

/**
 * Tokens of the request's messages `[from, to)`, where the request is `base` then `extra`: when
 * the range covers the whole of `base` (the turn's messages, the same list on every call of a
 * run), `base` is counted once per run and only `extra` message by message, so a call's cost
 * does not grow with the history.
 */
function rangeTokens(list: MessageList, from: number, to: number, counter: RunTokenCounter) {
  const { base, extra } = list
  const b = base.length
  const head =
    from === 0 && to >= b
      ? counter.messages(base)
      : sumRange(base, Math.min(from, b), Math.min(to, b), counter)
  return head + sumRange(extra, Math.max(0, from - b), Math.max(0, to - b), counter)
}

/** A request's messages as the turn's own (`base`) then this run's (`extra`). */
export interface MessageList {
  base: readonly Message[]
  extra: readonly Message[]
}

/** The message parts: the compaction summary, the kept history, this step's tool results. */
function messageParts(list: MessageList, counter: RunTokenCounter) {
  const parts: CompositionPart[] = []
  const first = messageAt(list, 0)
  const summary = summaryOf(first)
  const from = summary === undefined ? 0 : 1
  if (summary !== undefined) {
    parts.push({
      kind: 'summary',
      id: 'summary',
      tokens: counter.message(first as Message),
      digest: digest(summary),
    })
  }
  const count = countOf(list)
  const cut = Math.max(from, toolResultsStart(list))
  parts.push({
    kind: 'history',
    id: 'history',
    tokens: rangeTokens(list, from, cut, counter),
    count: cut - from,
  })
  if (cut < count) {
    const tokens = rangeTokens(list, cut, count, counter)
    parts.push({ kind: 'tool-results', id: 'tool-results', tokens, count: count - cut })
  }
  return parts
}

/**
 * The composition of one request (see {@link StepComposition}): system sections (stable first,
 * as sent), tool definitions, the compaction summary, the kept history, this step's tool
 * results, the user sections and the prefill, each with its tokens; then what the window leaves
 * after them and the reply. Remembers the request's messages for the run's next call. Pure but
 * for that memory.
 */
export function compositionOf(input: CompositionInput): StepComposition {
  const { counter, fitted } = input
  const list: MessageList = Array.isArray(input.messages)
    ? { base: input.messages as readonly Message[], extra: [] }
    : (input.messages as MessageList)
  const parts: CompositionPart[] = [
    ...stableFirst(fitted.system).map((s) => sectionPart('system', s, counter)),
    ...(input.tools.length > 0 ? [toolsPart(input.tools, counter)] : []),
    ...messageParts(list, counter),
    ...fitted.userSections.map((s) => sectionPart('user', s, counter)),
  ]
  if (input.prefill) {
    parts.push({ kind: 'prefill', id: 'prefill', tokens: counter.text(input.prefill) })
  }
  const total = parts.reduce((n, p) => n + p.tokens, 0)
  const previous = previousMessages.get(input.run)
  // the run's messages after the turn's grow in place: the next call compares with these as sent
  previousMessages.set(input.run, { base: list.base, extra: [...list.extra] })
  return {
    v: COMPOSITION_RECORD_VERSION,
    step: input.step,
    phase: input.phase,
    model: input.model,
    window: input.window,
    counter: { id: counter.counter.id, kind: counter.counter.kind },
    parts,
    reply: input.maxTokens,
    total,
    free: input.window - total - input.maxTokens,
    messages: {
      count: countOf(list),
      same: previous === undefined ? null : samePrefix(previous, list),
    },
  }
}

/**
 * Record the `agent:composition` record of one attempt (after its `agent:budget` record).
 * Recording never throws.
 */
export function recordComposition(
  ctx: CallContext,
  spec: CallSpec,
  turn: TurnContext,
  fitted: FittedSections,
): void {
  try {
    const record = compositionOf({
      step: spec.step,
      phase: spec.phase,
      model: turn.model.id,
      window: turn.model.contextWindow,
      maxTokens: spec.maxTokens,
      counter: ctx.counter,
      fitted,
      tools: turn.tools,
      messages: { base: turn.messages, extra: spec.extra },
      prefill: spec.opensReply ? turn.prefill : undefined,
      run: ctx.run,
    })
    ctx.run.trace.record(AGENT_TRACE_STAGES.composition, { ...record })
  } catch {
    // a trace record never fails a call
  }
}
