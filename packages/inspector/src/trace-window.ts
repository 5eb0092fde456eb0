import type { TraceEvent, TraceReader } from '@contextkit/core'
import { compositionView } from './composition.js'
import type { CompositionView, OmissionView, UsageFigures } from './model.js'
import { LOOP_STAGES } from './stages.js'
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

/** A trace step with how many steps after it had their reply saved. */
export type WindowStep = TraceStep & { savedAfter: number }

/** Reads a trace backwards into steps, keeping those of the window (see {@link readTraceWindow}). */
class BackwardSteps {
  readonly out: WindowStep[] = []
  readonly #input: TraceWindowInput
  readonly #pending = new Map<string, TraceStep>()
  /** Tool runs and decisions of each run's step 0, by run (kept for the run before it). */
  readonly #stepZero = new Map<number, TracedCalls>()
  #run: number
  #seen = 0
  #savedSeen = 0
  #savedPending = false
  #errorPending: string | null = null
  #done = false

  constructor(input: TraceWindowInput) {
    this.#input = input
    this.#run = input.runs
  }

  #finish(step: TraceStep): void {
    const { first, last } = this.#input
    if (step.fromEnd >= first && step.fromEnd <= last) {
      const resumed = this.#stepZero.get(step.run + 1) ?? null
      this.out.push({ ...step, resumed, savedAfter: this.#savedSeen })
    }
    if (step.saved) this.#savedSeen++
  }

  /** Finish the steps read so far (a step further back, or a run's start, was reached). */
  flush(): void {
    for (const step of this.#pending.values()) if (step.called) this.#finish(step)
    this.#pending.clear()
  }

  #runStart(): boolean {
    this.flush()
    this.#stepZero.delete(this.#run + 1)
    this.#run--
    this.#savedPending = false
    this.#errorPending = null
    return !this.#done
  }

  #stepOf(key: string, step: number): TraceStep | undefined {
    let found = this.#pending.get(key)
    if (found) return found
    this.flush()
    if (this.#done) return undefined
    found = newStep(this.#run, step)
    this.#pending.set(key, found)
    return found
  }

  #called(step: TraceStep): void {
    step.fromEnd = this.#seen++
    step.saved = this.#savedPending
    this.#savedPending = false
    if (this.#errorPending !== null) step.error = this.#errorPending
    this.#errorPending = null
    if (step.fromEnd >= this.#input.last) this.#done = true
  }

  /** Take one event (newest first); `false` once the window is read. */
  take(e: TraceEvent): boolean {
    if (e.stage === LOOP_STAGES.runStart) return this.#runStart()
    if (e.stage === LOOP_STAGES.saved && savedReply(e.data)) this.#savedPending = true
    if (e.stage === LOOP_STAGES.stop && e.data.stopReason === 'error') {
      this.#errorPending = typeof e.data.error === 'string' ? e.data.error : 'error'
    }
    const key = stepKey(this.#run, e.data)
    if (key === undefined) return true
    const isCall = e.stage === LOOP_STAGES.tool || e.stage === LOOP_STAGES.approval
    if (e.data.step === 0 && isCall) {
      const calls = this.#stepZero.get(this.#run) ?? newCalls()
      this.#stepZero.set(this.#run, calls)
      recordCall(calls, e)
      return true
    }
    const step = this.#stepOf(key, e.data.step as number)
    if (!step) return false
    if (e.stage === LOOP_STAGES.request && !step.called) this.#called(step)
    applyEvent(step, e)
    return true
  }
}

/**
 * The trace steps whose position from the end lies in `[first, last]`, newest first, read from
 * the trace's end backwards and only as far as the oldest of them: memory holds the window's
 * steps and one step being read, whatever the trace's length. Each step counts how many of the
 * steps after it had their reply saved (`savedAfter`), so it can be matched with the session's
 * replies from the end.
 */
export async function readTraceWindow(input: TraceWindowInput): Promise<WindowStep[]> {
  const steps = new BackwardSteps(input)
  await input.reader.readBackward(input.sessionId, input.end, (e) => steps.take(e))
  steps.flush()
  return steps.out
}
