import type { Usage } from '@contextkit/core'
import { compositionDiff } from './composition.js'
import type { CompactionView, StepView, ToolCallView, UsageFigures } from './model.js'
import type { SessionReply } from './session-steps.js'
import { num } from './trace-summary.js'
import type { TracedCalls, TraceStep } from './trace-window.js'

function figures(usage: Usage | null): UsageFigures | null {
  if (!usage) return null
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    costUsd: null,
  }
}

function approvalOf(decision: string | undefined): ToolCallView['approval'] {
  if (decision === 'ask') return 'requested'
  if (decision === 'approved' || decision === 'allow') return 'approved'
  if (decision === 'denied' || decision === 'deny') return 'denied'
  return null
}

/** The step's calls: the session's (input, result), with the trace's run time and decision. */
function toolCalls(reply: SessionReply | undefined, trace: TraceStep | undefined): ToolCallView[] {
  const sources: TracedCalls[] = trace
    ? [trace.calls, ...(trace.resumed ? [trace.resumed] : [])]
    : []
  const traced = (id: string) => sources.find((s) => s.tools.has(id))?.tools.get(id)
  const decided = (id: string) => {
    for (const s of [...sources].reverse()) if (s.approvals.has(id)) return s.approvals.get(id)
    return undefined
  }
  const calls: ToolCallView[] = reply
    ? reply.calls.map((c) => ({ ...c }))
    : [...(trace?.calls.tools ?? new Map()).entries()].map(([id, t]) => ({
        id,
        name: t.tool,
        input: '',
        result: null,
        isError: t.isError,
        durationMs: null,
        approval: null,
        reason: null,
      }))
  for (const call of calls) {
    const t = traced(call.id)
    if (t) {
      call.durationMs = t.durationMs
      if (call.result === null) call.isError = t.isError
    }
    call.approval ??= approvalOf(decided(call.id))
  }
  return calls
}

function compactionOf(
  reply: SessionReply | undefined,
  trace: TraceStep | undefined,
): CompactionView | null {
  const entry = reply?.compaction ?? null
  const traced = trace?.compacted ?? null
  if (!entry && !traced) return null
  const pick = (n: number | undefined, key: string) =>
    n ?? (traced && typeof traced[key] === 'number' ? num(traced, key) : null)
  return {
    reason: entry?.reason ?? (typeof traced?.reason === 'string' ? traced.reason : null),
    tokensBefore: pick(entry?.tokensBefore, 'beforeTokens'),
    tokensAfter: pick(entry?.tokensAfter, 'afterTokens'),
    summary: entry?.summary ?? null,
    summarized: pick(undefined, 'summarized'),
    kept: pick(undefined, 'kept'),
    firstKeptId: entry?.firstKeptId ?? null,
  }
}

/** One step's view from its trace record and its session reply (either may be missing). */
export function stepView(
  index: number,
  trace: TraceStep | undefined,
  reply: SessionReply | undefined,
): StepView {
  const usage = trace?.usage ?? figures(reply?.usage ?? null)
  return {
    index,
    run: trace?.run ?? null,
    step: trace?.step ?? null,
    phase: trace?.phase ?? null,
    at: reply?.ts ?? trace?.at ?? null,
    composition: trace?.composition ?? null,
    diff: null,
    omissions: trace?.omissions ?? [],
    cache: usage
      ? {
          read: usage.cacheRead,
          write: usage.cacheWrite,
          uncached: usage.input,
          breakpoints: trace?.breakpoints ?? [],
        }
      : null,
    usage,
    stopReason: reply?.stopReason ?? trace?.stopReason ?? null,
    text: reply?.text ?? '',
    thinking: reply?.thinking ?? '',
    toolCalls: toolCalls(reply, trace),
    compaction: compactionOf(reply, trace),
    error: trace?.error ?? null,
    attempts: trace?.attempts ?? 1,
  }
}

/** Fill each step's `diff` from the step before it (the first one needs `previous`). */
export function addDiffs(steps: StepView[], previous: StepView | undefined): void {
  let before = previous
  for (const step of steps) {
    if (before?.composition && step.composition) {
      step.diff = compositionDiff(before.composition, step.composition, before.index)
    }
    before = step
  }
}
