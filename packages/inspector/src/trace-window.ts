import type { TraceEvent } from '@contextkit/core'
import { compositionView } from './composition.js'
import type { CompositionView, OmissionView, UsageFigures } from './model.js'
import { LOOP_STAGES } from './stages.js'
import type { TraceReader } from './trace-reader.js'
import { addUsage, emptyUsage, num, savedReply, stepKey } from './trace-summary.js'

/** A tool call as the trace saw it run. */
export interface TracedTool {
  tool: string
  durationMs: number | null
  isError: boolean
}

/** Tool runs and approval decisions by tool call id. */
export interface TracedCalls {
  tools: Map<string, TracedTool>
  approvals: Map<string, string>
}

/** One model call of a run, as its trace records tell it. */
export interface TraceStep {
  run: number
  step: number
  phase: string | null
  at: string | null
  /** Position from the trace's last step (0: the last). */
  fromEnd: number
  composition: CompositionView | null
  omissions: OmissionView[]
  breakpoints: string[]
  stopReason: string | null
  usage: UsageFigures | null
  calls: TracedCalls
  /** Tool runs of the next run's step 0 (calls this step asked for, decided later). */
  resumed: TracedCalls | null
  compacted: Record<string, unknown> | null
  saved: boolean
  error: string | null
  attempts: number
  /** Whether the request was seen (a call step; a key with only tool events is not one). */
  called: boolean
}

function newCalls(): TracedCalls {
  return { tools: new Map(), approvals: new Map() }
}

function newStep(run: number, step: number): TraceStep {
  return {
    run,
    step,
    phase: null,
    at: null,
    fromEnd: -1,
    composition: null,
    omissions: [],
    breakpoints: [],
    stopReason: null,
    usage: null,
    calls: newCalls(),
    resumed: null,
    compacted: null,
    saved: false,
    error: null,
    attempts: 0,
    called: false,
  }
}

function omissions(data: Record<string, unknown>): OmissionView[] {
  const list = Array.isArray(data.omissions) ? data.omissions : []
  return list.flatMap((o: unknown) => {
    if (typeof o !== 'object' || o === null) return []
    const r = o as Record<string, unknown>
    const saved = r.tokensSaved
    return [
      {
        id: String(r.id ?? '?'),
        reason: String(r.reason ?? '?'),
        tokensSaved: typeof saved === 'number' && Number.isFinite(saved) ? saved : null,
      },
    ]
  })
}

function breakpoints(data: Record<string, unknown>): string[] {
  const list = Array.isArray(data.breakpoints) ? data.breakpoints : []
  return list.map((b: unknown) => {
    const r = (b ?? {}) as Record<string, unknown>
    const where = r.at === 'message' ? `message ${num(r, 'index') + 1}` : String(r.at ?? '?')
    return `${where} (${String(r.reason ?? '?')})`
  })
}

function recordCall(calls: TracedCalls, e: TraceEvent): void {
  const id = typeof e.data.id === 'string' ? e.data.id : undefined
  if (id === undefined) return
  if (e.stage === LOOP_STAGES.tool) {
    const ms = e.data.durationMs
    calls.tools.set(id, {
      tool: String(e.data.tool ?? ''),
      durationMs: typeof ms === 'number' ? ms : null,
      isError: e.data.isError === true,
    })
  } else if (!calls.approvals.has(id)) {
    // newest first: the first decision seen is the latest
    calls.approvals.set(id, String(e.data.decision ?? ''))
  }
}

/** Fold one event, read backwards, into the step it belongs to. */
function applyEvent(step: TraceStep, e: TraceEvent): void {
  if (e.ts) step.at = e.ts
  const d = e.data
  if (typeof d.phase === 'string' && step.phase === null) step.phase = d.phase
  switch (e.stage) {
    case LOOP_STAGES.composition:
      step.composition ??= compositionView(d)
      return
    case LOOP_STAGES.budget:
      if (step.omissions.length === 0) step.omissions = omissions(d)
      return
    case LOOP_STAGES.cache:
      if (step.breakpoints.length === 0) step.breakpoints = breakpoints(d)
      return
    case LOOP_STAGES.request:
      step.attempts++
      step.called = true
      return
    case LOOP_STAGES.reply: {
      if (step.stopReason !== null) return
      step.stopReason = typeof d.stopReason === 'string' ? d.stopReason : null
      const usage = emptyUsage()
      addUsage(usage, d.usage)
      step.usage = usage
      return
    }
    case LOOP_STAGES.compacted:
      step.compacted ??= d
      return
    case LOOP_STAGES.tool:
    case LOOP_STAGES.approval:
      recordCall(step.calls, e)
  }
}

/** What {@link readTraceWindow} needs to know of the whole trace (its summary). */
export interface TraceWindowInput {
  reader: TraceReader
  sessionId: string
  /** The position the summary was read up to: the window is read from there backwards. */
  end: number
  /** Runs in the trace up to `end`. */
  runs: number
  /** Steps from the end to return: `fromEnd` in `[first, last]` (0 is the last step). */
  first: number
  last: number
}

/**
 * The trace steps whose position from the end lies in `[first, last]`, newest first, read from
 * the trace's end backwards and only as far as the oldest of them: memory holds the window's
 * steps and one step being read, whatever the trace's length. Each step counts how many of the
 * steps after it had their reply saved (`savedAfter`), so it can be matched with the session's
 * replies from the end.
 */
export async function readTraceWindow(
  input: TraceWindowInput,
): Promise<Array<TraceStep & { savedAfter: number }>> {
  const out: Array<TraceStep & { savedAfter: number }> = []
  const pending = new Map<string, TraceStep>()
  const stepZero = new Map<number, TracedCalls>()
  let run = input.runs
  let seen = 0
  let savedSeen = 0
  let savedPending = false
  let errorPending: string | null = null
  let done = false
  const finish = (step: TraceStep) => {
    if (step.fromEnd >= input.first && step.fromEnd <= input.last) {
      out.push({ ...step, resumed: stepZero.get(step.run + 1) ?? null, savedAfter: savedSeen })
    }
    if (step.saved) savedSeen++
  }
  await input.reader.readBackward(input.sessionId, input.end, (e) => {
    if (e.stage === LOOP_STAGES.runStart) {
      for (const step of pending.values()) if (step.called) finish(step)
      pending.clear()
      stepZero.delete(run + 1)
      savedPending = false
      errorPending = null
      run--
      return !done
    }
    if (e.stage === LOOP_STAGES.saved && savedReply(e.data)) savedPending = true
    if (e.stage === LOOP_STAGES.stop && e.data.stopReason === 'error') {
      errorPending = typeof e.data.error === 'string' ? e.data.error : 'error'
    }
    const key = stepKey(run, e.data)
    if (key === undefined) return true
    if (e.data.step === 0 && (e.stage === LOOP_STAGES.tool || e.stage === LOOP_STAGES.approval)) {
      const calls = stepZero.get(run) ?? newCalls()
      stepZero.set(run, calls)
      recordCall(calls, e)
      return true
    }
    let step = pending.get(key)
    if (!step) {
      // a new step back: the ones after it are complete
      for (const [k, s] of pending) {
        if (s.called) finish(s)
        pending.delete(k)
      }
      if (done) return false
      step = newStep(run, e.data.step as number)
      pending.set(key, step)
    }
    if (e.stage === LOOP_STAGES.request && !step.called) {
      step.fromEnd = seen++
      step.saved = savedPending
      savedPending = false
      if (errorPending !== null) step.error = errorPending
      errorPending = null
      if (step.fromEnd >= input.last) done = true
    }
    applyEvent(step, e)
    return true
  })
  for (const step of pending.values()) if (step.called) finish(step)
  return out
}
