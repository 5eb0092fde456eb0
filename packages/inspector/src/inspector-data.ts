import type { TraceReader } from '@contextkit/core'
import type { SessionListItem, SessionState, SessionSummaryView, StepsPage } from './model.js'
import type { SessionSource } from './session-source.js'
import { type SessionReply, sessionReplies } from './session-steps.js'
import { emptySessionFold, type SessionFold } from './session-summary.js'
import { addDiffs, stepView } from './step-views.js'
import {
  emptyTraceSummary,
  foldTraceEvent,
  SUMMARY_STAGES,
  type TraceSummary,
} from './trace-summary.js'
import { readTraceWindow, type WindowStep } from './trace-window.js'

/** A run whose trace has not moved for this long and never stopped is taken as gone. */
export const STALE_RUN_MS = 60_000

/** Most steps one page request returns. */
export const MAX_PAGE_STEPS = 200

interface Summaries {
  session: SessionFold
  trace: TraceSummary
}

/** Steps of a session: the trace's, after the replies of older runs the trace does not hold. */
function totalSteps(s: Summaries): number {
  return Math.max(0, s.session.replies - s.trace.saved) + s.trace.steps
}

/**
 * What the page shows, read through a {@link SessionSource} and a {@link @contextkit/core#TraceReader}: the
 * sessions list, a session's summary and windows of its steps. A summary is kept per session and
 * grown from where the last read stopped, so a live session costs what it appended.
 */
export class InspectorData {
  readonly #sessions: SessionSource
  readonly #traces: TraceReader | undefined
  readonly #cache = new Map<string, Summaries>()
  readonly #reading = new Map<string, Promise<Summaries>>()
  /** Sessions a resume started from the page is running now. */
  readonly active = new Set<string>()
  readonly #now: () => number

  constructor(sessions: SessionSource, traces: TraceReader | undefined, now = Date.now) {
    this.#sessions = sessions
    this.#traces = traces
    this.#now = now
  }

  /** Reads of one session's summary are made one at a time (two at once would fold twice). */
  #summaries(id: string): Promise<Summaries> {
    const previous = this.#reading.get(id) ?? Promise.resolve()
    const next = previous.catch(() => {}).then(() => this.#update(id))
    this.#reading.set(id, next)
    void next
      .finally(() => {
        if (this.#reading.get(id) === next) this.#reading.delete(id)
      })
      .catch(() => {})
    return next
  }

  async #update(id: string): Promise<Summaries> {
    let s = this.#cache.get(id)
    if (!s) {
      s = { session: emptySessionFold(), trace: emptyTraceSummary() }
      this.#cache.set(id, s)
    }
    await this.#sessions.update(id, s.session)
    if (this.#traces) {
      const trace = s.trace
      const end = await this.#traces.end(id)
      if (end < trace.end) Object.assign(trace, emptyTraceSummary())
      trace.end = await this.#traces.readForward(
        id,
        trace.end,
        end,
        (e) => foldTraceEvent(trace, e),
        SUMMARY_STAGES,
      )
    }
    return s
  }

  #state(id: string, s: Summaries): SessionState {
    if (this.active.has(id)) return 'running'
    const last = s.trace.lastTs === null ? Number.NaN : Date.parse(s.trace.lastTs)
    const fresh = this.#now() - last < STALE_RUN_MS
    if (s.trace.open && fresh) return 'running'
    if (s.session.pending.size > 0) return 'awaiting_approval'
    if (s.trace.stopReason === 'error' || s.trace.open) return 'error'
    return 'ended'
  }

  #item(id: string, s: Summaries): SessionListItem {
    const usage = { ...s.session.usage, costUsd: s.trace.usage.costUsd }
    const times = [s.session.lastTs, s.trace.lastTs].filter((t): t is string => t !== null)
    return {
      id,
      lastActivity: times.sort().at(-1) ?? null,
      state: this.#state(id, s),
      steps: totalSteps(s),
      usage,
      compactions: Math.max(s.session.compactions, s.trace.compactions),
      traced: s.trace.end > 0,
    }
  }

  /** Whether the session has any entry or trace event. */
  async exists(id: string): Promise<boolean> {
    const s = await this.#summaries(id)
    return s.session.end > 0 || s.trace.end > 0
  }

  /** Every session, newest activity first. */
  async list(): Promise<SessionListItem[]> {
    const ids = await this.#sessions.list()
    const items = await Promise.all(
      ids.map(async (id) => this.#item(id, await this.#summaries(id))),
    )
    return items.sort((a, b) => (b.lastActivity ?? '').localeCompare(a.lastActivity ?? ''))
  }

  /** One session's figures, its waiting calls and how its last run stopped. */
  async summary(id: string): Promise<SessionSummaryView> {
    const s = await this.#summaries(id)
    const warnings: string[] = []
    if (s.session.skipped > 0)
      warnings.push(`${s.session.skipped} unreadable session line(s) skipped`)
    if (s.trace.saved > s.session.replies) {
      warnings.push('the trace holds more replies than the session: steps may be matched wrongly')
    }
    const open = s.trace.open && this.#state(id, s) === 'error'
    return {
      ...this.#item(id, s),
      createdAt: s.session.createdAt,
      pending: [...s.session.pending.values()],
      stopReason: s.trace.stopReason,
      error: open ? 'the last run never stopped (the process ended or was killed)' : s.trace.error,
      warnings,
    }
  }

  /** A marker that changes when the session or its trace changes (or a resume starts or ends). */
  async version(id: string): Promise<string> {
    const trace = this.#traces ? await this.#traces.end(id) : 0
    const running = this.active.has(id) ? 'r' : ''
    return `${await this.#sessions.version(id)}:${trace}${running}`
  }

  /** The newest `count` steps. */
  async tail(id: string, count: number): Promise<StepsPage> {
    const total = totalSteps(await this.#summaries(id))
    const n = Math.min(Math.max(1, count), MAX_PAGE_STEPS)
    return this.steps(id, Math.max(1, total - n + 1), n)
  }

  /** Steps `from` (1-based) on, at most `count`, and the session's step count. */
  async steps(id: string, from: number, count: number): Promise<StepsPage> {
    const s = await this.#summaries(id)
    const total = totalSteps(s)
    const first = Math.min(Math.max(1, from), Math.max(1, total))
    const to = Math.min(total + 1, first + Math.min(Math.max(1, count), MAX_PAGE_STEPS))
    if (total === 0 || first >= to) return { total, from: first, steps: [] }
    const lo = Math.max(1, first - 1) // one more, for the first step's difference
    const { trace, replies } = await this.#read(id, s, total, lo, to)
    const views = []
    for (let o = lo; o < to; o++) {
      const t = trace.get(o)
      const k = t
        ? t.saved
          ? t.savedAfter
          : undefined
        : s.trace.saved + (total - s.trace.steps - o)
      views.push(stepView(o, t, k === undefined ? undefined : replies.get(k)))
    }
    const previous = lo < first ? views.shift() : undefined
    addDiffs(views, previous)
    return { total, from: first, steps: views }
  }

  /** The trace steps and session replies of steps `[lo, to)`, by step index and reply position. */
  async #read(id: string, s: Summaries, total: number, lo: number, to: number) {
    const trace = new Map<number, WindowStep>()
    const traced = s.trace.steps
    const first = Math.max(0, total - (to - 1))
    const last = Math.min(traced - 1, total - lo)
    if (this.#traces && first <= last) {
      const window = await readTraceWindow({
        reader: this.#traces,
        sessionId: id,
        end: s.trace.end,
        runs: s.trace.runs,
        first,
        last,
      })
      for (const t of window) trace.set(total - t.fromEnd, t)
    }
    const wanted: number[] = []
    for (const t of trace.values()) if (t.saved) wanted.push(t.savedAfter)
    for (let o = lo; o < to && o <= total - traced; o++) {
      wanted.push(s.trace.saved + (total - traced - o))
    }
    const replies = new Map<number, SessionReply>()
    if (wanted.length > 0) {
      const kMin = Math.min(...wanted)
      const kMax = Math.max(...wanted)
      const entries = await this.#sessions.window(id, s.session.end, kMin, kMax)
      for (const r of sessionReplies(entries, kMin)) replies.set(r.fromEnd, r)
    }
    return { trace, replies }
  }
}
