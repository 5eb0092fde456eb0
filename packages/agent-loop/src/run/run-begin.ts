import {
  createTurnContext,
  type Message,
  type RunInfo,
  runPrepare,
  type TurnContext,
} from '@contextkit/core'
import type { AgentEvent, AgentWarning, PendingApproval, ResumeSummary } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import type { RunState } from '../session/run-state.js'
import type { ApprovalDraft, SessionRun } from '../session/session-run.js'
import { toolDefinition } from '../tools/define-tool.js'
import { definitionsOf } from '../tools/tool-definitions.js'
import type { ResolvedOptions } from './options.js'
import { finishCalls, warnUnmatched } from './resume.js'

/** The session as the run opened it. */
export interface OpenedSession {
  session: SessionRun
  messages: Message[]
  state: RunState
}

/** What {@link beginRun} needs from the loop. */
export interface BeginInput {
  options: ResolvedOptions
  opened: OpenedSession | undefined
  run: RunInfo
  signal: AbortSignal
  emit(event: AgentEvent): void
  warn(warning: AgentWarning): void
  /** Append a batch to the session; `input`: the run's given messages (not its own replies). */
  save(
    messages: readonly Message[],
    approvals?: readonly ApprovalDraft[],
    input?: boolean,
  ): Promise<void>
}

/** How a run begins: the history to go on with, or a stop before any model call. */
export type Begun =
  | { history: Message[] }
  | { stop: 'awaiting_approval'; pending: PendingApproval[] }
  | { stop: 'end_turn' }

/**
 * The start of a run, before its first model call. A session whose last run is unfinished is
 * taken up first (whether or not `resume` is given): the calls of its last reply that have no
 * result are answered ({@link finishCalls}) and saved. Then the run's new messages are saved,
 * write-ahead, so a crash from here on never loses them. Ends the run early when calls still
 * wait for a person, or when `resume` found nothing to do and no message came.
 */
export async function beginRun(input: BeginInput): Promise<Begun> {
  const { options: o, opened } = input
  if (!opened) return { history: [] }
  const stored = [...opened.messages]
  const { state } = opened
  if (state.kind !== 'tools') {
    warnUnmatched({ unanswered: [], approvals: o.resume?.approvals ?? {}, warn: input.warn })
  }
  if (state.kind === 'idle' && o.resume !== undefined && o.messages.length === 0) {
    return { stop: 'end_turn' }
  }
  if (state.kind !== 'idle') {
    let summary: ResumeSummary = emptySummary('reply')
    if (state.kind === 'tools') {
      const finished = await finishCalls({
        unanswered: state.unanswered,
        approvals: o.resume?.approvals ?? {},
        superseded: o.messages.length > 0,
        tools: o.tools,
        concurrency: o.concurrency,
        signal: input.signal,
        run: input.run,
        emit: input.emit,
        warn: input.warn,
        saveDecisions: (drafts) => input.save([], drafts),
      })
      summary = finished.summary
      if (finished.results) {
        await input.save([finished.results])
        stored.push(finished.results)
      }
      report(input, summary)
      if (finished.pending.length > 0)
        return { stop: 'awaiting_approval', pending: finished.pending }
    } else report(input, summary)
  }
  await input.save(o.messages, [], true)
  return { history: opened.session.history(stored) }
}

function emptySummary(state: ResumeSummary['state']): ResumeSummary {
  return { state, rerun: [], interrupted: [], approved: [], denied: [], pending: [] }
}

function report(input: BeginInput, summary: ResumeSummary): void {
  input.run.trace.record(AGENT_TRACE_STAGES.resumed, { ...summary })
  input.emit({ type: 'run-resume', ...summary })
}

/** Middleware `prepare` over the history plus the run's new messages, traced as `prepared`. */
export async function prepareTurn(
  o: ResolvedOptions,
  history: readonly Message[],
  run: RunInfo,
): Promise<TurnContext> {
  const turn = await runPrepare(
    o.middleware,
    createTurnContext({
      model: o.model,
      system: o.system,
      messages: [...history, ...o.messages],
      tools: definitionsOf([...o.tools.values()], toolDefinition),
      vars: { ...o.vars },
      ...(o.thinking ? { thinking: o.thinking } : {}),
    }),
    run,
  )
  run.trace.record(AGENT_TRACE_STAGES.prepared, {
    system: turn.system.map((s) => s.id),
    userSections: turn.userSections.map((s) => s.id),
    prefill: turn.prefill,
    tools: turn.tools.map((t) => t.name),
  })
  return turn
}
