// The pure API of @contextkit/agent-loop: no Node built-ins, safe to bundle for browsers and edge
// runtimes. Sessions are kept by any core `SessionStore` the caller passes (the JSONL file store
// is `@contextkit/store-files`).
export { OMISSION_NOTICE_ID } from './budget.js'
export type {
  CacheBreakpoint,
  CacheBreakpointReason,
  CacheMode,
  CachePlacement,
  PlaceCacheBreakpointsInput,
} from './cache-breakpoints.js'
export {
  CACHE_BREAKPOINTS_DROPPED,
  CACHE_MODES,
  placeCacheBreakpoints,
  TOOLS_CACHE_MIN_TOKENS,
} from './cache-breakpoints.js'
export type {
  CompactionOptions,
  SummarizeInput,
  Summarizer,
} from './compaction/compaction-options.js'
export {
  CompactionOptionsSchema,
  DEFAULT_COMPACTION_AT,
  DEFAULT_KEEP_RECENT_TOKENS,
  MIN_COMPACTION_GAIN,
} from './compaction/compaction-options.js'
export { asContextTooLong, isContextTooLong } from './compaction/context-too-long.js'
export {
  COMPACTION_SUMMARY_PREFIX,
  SUMMARY_SYSTEM_PROMPT,
  serializeConversation,
  summaryMessage,
  summaryOf,
} from './compaction/summarize.js'
export type {
  AgentTool,
  ApprovalCallback,
  ApprovalContext,
  ApprovalDecision,
  ApprovalPolicy,
  DefineToolOptions,
  ToolContext,
  ToolOutput,
} from './define-tool.js'
export { DEFAULT_TOOL_TIMEOUT_MS, defineTool, toolDefinition } from './define-tool.js'
export type { ProviderErrorOptions } from './errors.js'
export {
  AgentAbortedError,
  AgentLoopError,
  ContextIrreducibleError,
  ContextTooLongError,
  OutputValidationError,
  PlanError,
  ProviderError,
  RepeatedToolCallError,
  RequestBuildError,
  RequiredSectionsError,
  ToolAbortedError,
  ToolDeniedError,
  ToolExecutionError,
  ToolInputError,
  ToolInterruptedError,
  ToolOutputError,
  ToolTimeoutError,
  UnknownToolError,
} from './errors.js'
export type {
  AgentCallUsage,
  AgentEvent,
  AgentPhase,
  AgentResult,
  AgentRunUsage,
  AgentUsage,
  AgentWarning,
  CompactionReason,
  PendingApproval,
  ResumeSummary,
} from './events.js'
export { AGENT_EVENT_TYPES, cacheHitRate } from './events.js'
export type { LimitHistoryOptions } from './history.js'
export {
  limitHistory,
  messageTokens,
  repairOrphans,
} from './history.js'
export type { JsonSchemaToolOptions } from './json-schema-tool.js'
export { jsonSchemaTool } from './json-schema-tool.js'
export type { LoopGuardOptions, LoopGuardVerdict } from './loop-guard.js'
export { LoopGuard } from './loop-guard.js'
export type { ApprovalAnswer, RunAgentOptions } from './options.js'
export { RunAgentOptionsSchema } from './options.js'
export type { OutputMode, ResponseFormat } from './output/output-schema.js'
export { OUTPUT_TOOL_NAME } from './output/output-schema.js'
export type { PlanAnswer, PlanOptions } from './plan.js'
export { PLAN_SECTION_ID, PLAN_SYSTEM_PROMPT, PlanAnswerSchema } from './plan.js'
export type {
  ModelProvider,
  ProviderEvent,
  ProviderRequest,
  ProviderStreamOptions,
  ThinkingOptions,
} from './provider.js'
export type { AgentRun } from './run-agent.js'
export { runAgent } from './run-agent.js'
export type { RunToolCallsOptions, ToolOutcome } from './run-tools.js'
export { runToolCalls } from './run-tools.js'
export type { AppliedCompaction } from './session/apply-compaction.js'
export { applyCompaction } from './session/apply-compaction.js'
export type { SessionMessageEntriesOptions } from './session/entries.js'
export { lastEntryId, sessionMessageEntries } from './session/entries.js'
export type { HistoryLimit, SessionOptions } from './session-run.js'
export type { PrepareStep, PrepareStepState, StepPreparation } from './step-control.js'
export type { StopCondition, StopPredicate, StopState, StopWhen } from './stop-conditions.js'
export {
  budgetExceeded,
  maxSteps,
  noToolCalls,
  stopConditions,
  toolCalled,
} from './stop-conditions.js'
export type { AgentStopReason } from './stop-reasons.js'
export { AGENT_STOP_REASONS } from './stop-reasons.js'
export type {
  AsyncTokenCounter,
  TokenCountPrepareInput,
  TokenCountPrepareResult,
} from './token-count-prepass.js'
export { isAsyncTokenCounter } from './token-count-prepass.js'
export type { ToolChoice } from './tool-choice.js'
export { AGENT_TRACE_STAGES } from './trace-stages.js'
export { TRAILING_TURN_FALLBACK } from './trailing-turn.js'
export { AGENT_LOOP_WARNINGS } from './warnings.js'
