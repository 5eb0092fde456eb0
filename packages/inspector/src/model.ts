// The data the inspector's page reads from its JSON API (shared by the server and the page).

/** Where a session stands. */
export type SessionState = 'running' | 'awaiting_approval' | 'ended' | 'error'

/** Token figures of one reply or a sum of them. */
export interface UsageFigures {
  /** Input tokens not read from or written to the cache. */
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  /** Cost in US dollars where the model has prices (from the trace), else `null`. */
  costUsd: number | null
}

/** One row of the sessions list. */
export interface SessionListItem {
  id: string
  /** Time of the newest entry or trace event (ISO 8601), `null` when unknown. */
  lastActivity: string | null
  state: SessionState
  steps: number
  usage: UsageFigures
  compactions: number
  /** Whether the session has a run trace (else only what the session log holds). */
  traced: boolean
}

/** A tool call that waits for a person's decision. */
export interface PendingCall {
  toolCallId: string
  tool: string
  /** The call's input as indented JSON text. */
  input: string
}

/** A session's header figures. */
export interface SessionSummaryView extends SessionListItem {
  createdAt: string | null
  pending: PendingCall[]
  /** The last run's stop reason from the trace (`end_turn`, `awaiting_approval`, …). */
  stopReason: string | null
  error: string | null
  /** What reading the session skipped or could not match. */
  warnings: string[]
}

/** One part of a request's window (see agent-loop's `StepComposition`). */
export interface CompositionPartView {
  kind: string
  id: string
  tokens: number
  digest?: string
  count?: number
  cache?: string
}

/** What filled the window on one call. */
export interface CompositionView {
  window: number
  reply: number
  total: number
  free: number
  exact: boolean
  counter: string
  parts: CompositionPartView[]
  messages: { count: number; same: number | null }
}

/** What changed in the request since the previous step. */
export interface CompositionDiffView {
  /** The step compared with (its index in the session). */
  previous: number
  added: string[]
  removed: string[]
  changed: string[]
  /** Messages kept unchanged from the previous call, when the loop knew (same run). */
  sameMessages: number | null
  previousMessages: number
  /** Where the request first differs from the previous one (what breaks a cached prefix). */
  firstChange: string | null
}

/** Something budget fitting shortened or dropped. */
export interface OmissionView {
  id: string
  reason: string
  tokensSaved: number | null
}

/** One tool call of a step and what became of it. */
export interface ToolCallView {
  id: string
  name: string
  input: string
  result: string | null
  isError: boolean
  durationMs: number | null
  approval: 'requested' | 'approved' | 'denied' | null
  reason: string | null
}

/** A compaction made at a step. */
export interface CompactionView {
  reason: string | null
  tokensBefore: number | null
  tokensAfter: number | null
  summary: string | null
  /** Messages the summary replaced, and those kept (from the trace). */
  summarized: number | null
  kept: number | null
  firstKeptId: string | null
}

/** One step: one model call and the tool calls it asked for. */
export interface StepView {
  /** 1-based position in the session. */
  index: number
  /** The run (1-based, in the trace) and the step within it; `null` without a trace. */
  run: number | null
  step: number | null
  phase: string | null
  at: string | null
  composition: CompositionView | null
  diff: CompositionDiffView | null
  omissions: OmissionView[]
  cache: {
    read: number
    write: number
    uncached: number
    breakpoints: string[]
  } | null
  usage: UsageFigures | null
  stopReason: string | null
  text: string
  thinking: string
  toolCalls: ToolCallView[]
  compaction: CompactionView | null
  error: string | null
  /** Attempts of the call (a recovered or compacted call is sent again). */
  attempts: number
}

/** A window of a session's steps. */
export interface StepsPage {
  total: number
  /** Index of the first step returned. */
  from: number
  steps: StepView[]
}
