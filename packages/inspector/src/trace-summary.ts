import type { TraceEvent } from '@contextkit/core'
import type { UsageFigures } from './model.js'
import { LOOP_STAGES } from './stages.js'

/** What a forward pass over a session's trace found (kept per session, grown incrementally). */
export interface TraceSummary {
  /** The reader position read up to. */
  end: number
  runs: number
  /** Model calls (one per run and step, retries and recoveries not counted twice). */
  steps: number
  /** Steps whose reply was saved to the session. */
  saved: number
  usage: UsageFigures
  compactions: number
  lastTs: string | null
  /** A run started and has not stopped (yet). */
  open: boolean
  stopReason: string | null
  error: string | null
  /** The step being read: `run:step`, and whether its reply was saved. */
  current: string | null
  currentSaved: boolean
}

/** Zero token figures. */
export function emptyUsage(): UsageFigures {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costUsd: null }
}

/** A number field of a record, or `0`. */
export function num(data: unknown, key: string): number {
  const v = (data as Record<string, unknown> | null | undefined)?.[key]
  return typeof v === 'number' && Number.isFinite(v) ? v : 0
}

/** Add one reply's usage (a loop `AgentUsage` or a session message `Usage`) to `sum`. */
export function addUsage(sum: UsageFigures, usage: unknown): void {
  if (typeof usage !== 'object' || usage === null) return
  sum.input += num(usage, 'input')
  sum.output += num(usage, 'output')
  sum.cacheRead += num(usage, 'cacheRead')
  sum.cacheWrite += num(usage, 'cacheWrite')
  const cost = (usage as { costUsd?: unknown }).costUsd
  if (typeof cost === 'number' && Number.isFinite(cost)) sum.costUsd = (sum.costUsd ?? 0) + cost
}

/** The summary of an empty trace. */
export function emptyTraceSummary(): TraceSummary {
  return {
    end: 0,
    runs: 0,
    steps: 0,
    saved: 0,
    usage: emptyUsage(),
    compactions: 0,
    lastTs: null,
    open: false,
    stopReason: null,
    error: null,
    current: null,
    currentSaved: false,
  }
}

/** The stages {@link foldTraceEvent} reads (a reader may skip the others). */
export const SUMMARY_STAGES: ReadonlySet<string> = new Set([
  LOOP_STAGES.runStart,
  LOOP_STAGES.request,
  LOOP_STAGES.saved,
  LOOP_STAGES.reply,
  LOOP_STAGES.compacted,
  LOOP_STAGES.stop,
])

/** The step an event belongs to, `run:step`, or `undefined` when it names none. */
export function stepKey(run: number, data: Record<string, unknown>): string | undefined {
  return typeof data.step === 'number' ? `${run}:${data.step}` : undefined
}

/** Whether a `saved` record appended an assistant reply. */
export function savedReply(data: Record<string, unknown>): boolean {
  return Array.isArray(data.roles) && data.roles.includes('assistant')
}

/** Fold one event into `s` (in trace order). */
export function foldTraceEvent(s: TraceSummary, e: TraceEvent): void {
  if (e.ts && (s.lastTs === null || e.ts > s.lastTs)) s.lastTs = e.ts
  switch (e.stage) {
    case LOOP_STAGES.runStart:
      s.runs++
      s.open = true
      s.current = null
      s.stopReason = null
      s.error = null
      return
    case LOOP_STAGES.request: {
      const key = stepKey(s.runs, e.data)
      if (key !== undefined && key !== s.current) {
        s.steps++
        s.current = key
        s.currentSaved = false
      }
      return
    }
    case LOOP_STAGES.saved:
      if (savedReply(e.data) && s.current !== null && !s.currentSaved) {
        s.saved++
        s.currentSaved = true
      }
      return
    case LOOP_STAGES.reply:
      addUsage(s.usage, e.data.usage)
      return
    case LOOP_STAGES.compacted:
      s.compactions++
      return
    case LOOP_STAGES.stop:
      s.open = false
      s.stopReason = typeof e.data.stopReason === 'string' ? e.data.stopReason : null
      s.error = typeof e.data.error === 'string' ? e.data.error : null
      return
  }
}
