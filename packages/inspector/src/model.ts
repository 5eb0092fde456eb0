// The data the inspector's page reads from its JSON API (shared by the server and the page).

/** Where a session stands. */
export type SessionState = 'running' | 'awaiting_approval' | 'ended' | 'error'

/** Token figures of one reply or a sum of them. */
export interface UsageFigures {
  /** Input tokens not read from or written to the cache. */
  input: number
  /** Output tokens. */
  output: number
  /** Input tokens read from the prompt cache. */
  cacheRead: number
  /** Input tokens written to the prompt cache. */
  cacheWrite: number
  /** Cost in US dollars where the model has prices (from the trace), else `null`. */
  costUsd: number | null
}

/** One row of the sessions list. */
export interface SessionListItem {
  /** The session id. */
  id: string
  /** Time of the newest entry or trace event (ISO 8601), `null` when unknown. */
  lastActivity: string | null
  /** Where the session stands. */
  state: SessionState
  /** Steps (model calls) in the session. */
  steps: number
  /** Token figures of every reply, the cost from the trace. */
  usage: UsageFigures
  /** Compactions of its history. */
  compactions: number
  /** Whether the session has a run trace (else only what the session log holds). */
  traced: boolean
}

/** A tool call that waits for a person's decision. */
export interface PendingCall {
  /** The call's id (what a decision names). */
  toolCallId: string
  /** The tool it calls. */
  tool: string
  /** The call's input as indented JSON text. */
  input: string
}

/** A session's header figures. */
export interface SessionSummaryView extends SessionListItem {
  /** When the session was created (its header), `null` when unknown. */
  createdAt: string | null
  /** The calls that wait for a person's decision. */
  pending: PendingCall[]
  /** The last run's stop reason from the trace (`end_turn`, `awaiting_approval`, …). */
  stopReason: string | null
  /** Why the last run failed, when it did. */
  error: string | null
  /** What reading the session skipped or could not match. */
  warnings: string[]
}

/** One part of a request's window (see agent-loop's `StepComposition`). */
export interface CompositionPartView {
  /** `system`, `tools`, `summary`, `history`, `tool-results`, `user` or `prefill`. */
  kind: string
  /** The section id, else the kind. */
  id: string
  /** Tokens of the part. */
  tokens: number
  /** Digest of its content (a new one: the part changed). */
  digest?: string
  /** Messages or tool definitions in it. */
  count?: number
  /** A system section's cache class (`stable`, `volatile`). */
  cache?: string
}

/** What filled the window on one call. */
export interface CompositionView {
  /** The model's context window. */
  window: number
  /** Tokens reserved for the reply. */
  reply: number
  /** Tokens of all parts. */
  total: number
  /** What the window leaves (negative: over it). */
  free: number
  /** Whether the counts are the model's own (else estimates). */
  exact: boolean
  /** The token counter's id. */
  counter: string
  /** The parts, in request order. */
  parts: CompositionPartView[]
  /** Messages of the request, and how many leading ones the run's previous call sent unchanged. */
  messages: { count: number; same: number | null }
}

/** What changed in the request since the previous step. */
export interface CompositionDiffView {
  /** The step compared with (its index in the session). */
  previous: number
  /** Parts the previous request did not have. */
  added: string[]
  /** Parts it had and this one has not. */
  removed: string[]
  /** Parts whose content changed. */
  changed: string[]
  /** Messages kept unchanged from the previous call, when the loop knew (same run). */
  sameMessages: number | null
  /** Messages of the previous request. */
  previousMessages: number
  /** Where the request first differs from the previous one (what breaks a cached prefix). */
  firstChange: string | null
}

/** Something budget fitting shortened or dropped. */
export interface OmissionView {
  /** The section. */
  id: string
  /** What fitting did (`shortened`, `dropped`, …). */
  reason: string
  /** Tokens it saved, when known. */
  tokensSaved: number | null
}

/** One tool call of a step and what became of it. */
export interface ToolCallView {
  /** The call id. */
  id: string
  /** The tool. */
  name: string
  /** The input as indented JSON text. */
  input: string
  /** The result text as saved, `null` when none was. */
  result: string | null
  /** Whether the result is an error. */
  isError: boolean
  /** How long the call ran (from the trace). */
  durationMs: number | null
  /** Its approval, when it needed one. */
  approval: 'requested' | 'approved' | 'denied' | null
  /** The reason of a denial. */
  reason: string | null
}

/** A compaction made at a step. */
export interface CompactionView {
  /** `threshold` or `overflow`. */
  reason: string | null
  /** Estimated request tokens before it. */
  tokensBefore: number | null
  /** Estimated request tokens after it. */
  tokensAfter: number | null
  /** The summary text (from the session). */
  summary: string | null
  /** Messages the summary replaced, and those kept (from the trace). */
  summarized: number | null
  /** Messages kept after it (from the trace). */
  kept: number | null
  /** The first kept entry's id. */
  firstKeptId: string | null
}

/** One step: one model call and the tool calls it asked for. */
export interface StepView {
  /** 1-based position in the session. */
  index: number
  /** The run (1-based, in the trace) and the step within it; `null` without a trace. */
  run: number | null
  /** The step within its run (`null` without a trace). */
  step: number | null
  /** `agent` or `plan`. */
  phase: string | null
  /** When its reply was saved (or its last trace event). */
  at: string | null
  /** What filled the window, from the trace. */
  composition: CompositionView | null
  /** What changed since the previous step. */
  diff: CompositionDiffView | null
  /** What budget fitting shortened or dropped. */
  omissions: OmissionView[]
  /** Cache figures of the call and the breakpoints it carried. */
  cache: {
    /** Input tokens read from the cache. */
    read: number
    /** Input tokens written to it. */
    write: number
    /** Input tokens neither read nor written. */
    uncached: number
    /** Where the request's cache breakpoints were. */
    breakpoints: string[]
  } | null
  /** Token figures of the call. */
  usage: UsageFigures | null
  /** Why the reply stopped. */
  stopReason: string | null
  /** The reply's text. */
  text: string
  /** The reply's thinking. */
  thinking: string
  /** The calls it asked for. */
  toolCalls: ToolCallView[]
  /** A compaction made before this call. */
  compaction: CompactionView | null
  /** Why the call failed, when it did. */
  error: string | null
  /** Attempts of the call (a recovered or compacted call is sent again). */
  attempts: number
}

/** A window of a session's steps. */
export interface StepsPage {
  /** Steps in the session. */
  total: number
  /** Index of the first step returned. */
  from: number
  /** The steps, in order. */
  steps: StepView[]
}
