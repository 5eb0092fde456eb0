// The shapes every model call shares: what a run gives each call (`CallContext`), one call to
// make (`CallSpec`) and how it ended (`CallResult`). Kept apart from `callModel` so the helpers
// that build a call's request and trace read them without importing the call itself.
import type {
  AssistantMessage,
  ContextkitError,
  ContextMiddleware,
  Message,
  RunInfo,
  TurnContext,
  Usage,
} from '@contextkit/core'
import type { Formatter, RequestMemo } from '@contextkit/formatters'
import type { RunTokenCounter } from '../budget/budget.js'
import type { CacheState } from '../budget/cache-breakpoints.js'
import type { RunWindows } from '../budget/context-window.js'
import type { ToolResultClipper } from '../budget/tool-result-clip.js'
import type { AgentEvent, AgentPhase, AgentWarning } from '../events/events.js'
import type { ModelProvider, ResponseFormat } from '../provider/contract.js'
import type { ToolChoice } from '../provider/tool-choice.js'

/** What every model call of a run shares. */
export interface CallContext {
  provider: ModelProvider
  /** The preferred formatter (`formatterFor` may swap it per call). */
  formatter: Formatter | undefined
  middleware: readonly ContextMiddleware[]
  run: RunInfo
  signal: AbortSignal
  counter: RunTokenCounter
  /** The context windows in force (a window a server stated replaces the model's own). */
  windows: RunWindows
  budgetTokens: number | undefined
  emit(event: AgentEvent): void
  warn(warning: AgentWarning): void
  /** Backpressure from the run's event readers (see `StreamReplyInput.backpressure`). */
  backpressure?: () => Promise<void> | undefined
  /** Adds a call's usage to the run's figures. */
  addUsage(usage: Usage, step: number, phase: AgentPhase): void
  /** Prompt-cache placement across the run's calls. */
  cache: CacheState
  /** Ids of sections already reported as dropped in this run (one warning each). */
  droppedWarned?: Set<string>
  /** Cuts oversized tool results in requests (`toolResultMaxTokens`); none: sent whole. */
  clip?: ToolResultClipper
  /**
   * What the run's requests share (formatters' `RequestMemo`): a call does not check and render
   * again the messages the previous one began with (the run's messages are never changed in
   * place). None: every call looks at every message.
   */
  requests?: RequestMemo
}

/** One model call to make. */
export interface CallSpec {
  /** The prepared turn: model, system, base messages, user sections, prefill, tools, thinking. */
  turn: TurnContext
  /** Messages of this run after the turn's own (raw replies and tool results so far). */
  extra: readonly Message[]
  /**
   * Open the reply with `turn.prefill` (a step's call: the prepared prefill goes with step 1 only,
   * a `prepareStep` may set one for a later step; the plan, summary and output calls never do).
   */
  opensReply: boolean
  maxTokens: number
  /** The step the call belongs to (`0`: the plan phase), and its phase. */
  step: number
  phase: AgentPhase
  /** The call's tool choice (`runAgent`'s `toolChoice` or the step's); absent: `'auto'`. */
  toolChoice?: ToolChoice
  /** The JSON Schema the reply must match (the output phase, `outputMode: 'json-schema'`). */
  responseFormat?: ResponseFormat
}

/**
 * How a call ended, with the turn it ended on (a `recover` hook may have replaced it: then
 * `recovered` is set).
 */
export type CallResult = (
  | { kind: 'done'; reply: AssistantMessage; invalidCalls: Map<string, string>; turn: TurnContext }
  | { kind: 'aborted'; reply: AssistantMessage; turn: TurnContext }
  | { kind: 'failed'; reply: AssistantMessage; turn: TurnContext; error: ContextkitError }
) & { recovered?: true }
