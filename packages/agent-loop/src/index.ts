// The pure API of @contextkit/agent-loop: no Node built-ins, safe to bundle for browsers and edge
// runtimes. Sessions are kept by any core `SessionStore` the caller passes (the JSONL file store
// is `@contextkit/store-files`).
export type { LearnedWindow } from './budget/context-window.js'
export { RequiredSectionsError } from './budget/errors.js'
export type { LimitHistoryOptions } from './budget/history.js'
export { limitHistory, repairOrphans } from './budget/history.js'
export type {
  CompositionPart,
  CompositionPartKind,
  StepComposition,
} from './call/composition-trace.js'
export { COMPOSITION_RECORD_VERSION } from './call/composition-trace.js'
export { RequestBuildError } from './call/errors.js'
export { TRAILING_TURN_FALLBACK } from './call/trailing-turn.js'
export type {
  CompactionOptions,
  SummarizeInput,
  Summarizer,
} from './compaction/compaction-options.js'
export {
  CompactionOptionsCheck,
  DEFAULT_COMPACTION_AT,
  DEFAULT_KEEP_RECENT_TOKENS,
  MIN_COMPACTION_GAIN,
} from './compaction/compaction-options.js'
export { ContextIrreducibleError } from './compaction/errors.js'
export { SUMMARY_SYSTEM_PROMPT, serializeConversation } from './compaction/summarize.js'
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
} from './events/events.js'
export { AGENT_EVENT_TYPES, cacheHitRate } from './events/events.js'
export type { ScopedTrace, TraceScope } from './events/run-trace.js'
export type { AgentStopReason } from './events/stop-reasons.js'
export { AGENT_STOP_REASONS } from './events/stop-reasons.js'
export { AGENT_TRACE_STAGES } from './events/trace-stages.js'
export { AGENT_LOOP_WARNINGS } from './events/warnings.js'
export { OutputValidationError } from './output/errors.js'
export { OUTPUT_TOOL_NAME } from './output/output-schema.js'
export type { PlanClarification } from './plan/answers.js'
export {
  USER_CONTEXT_HEADING,
  USER_CONTEXT_SECTION_ID,
  userContextSection,
} from './plan/answers.js'
export { PlanError, PlanQuestionError } from './plan/errors.js'
export type { PlanAnswer, PlanOptions, PlanQuestion } from './plan/plan.js'
export { PLAN_SECTION_ID, PLAN_SYSTEM_PROMPT, PlanAnswerCheck } from './plan/plan.js'
export type {
  ModelProvider,
  OutputMode,
  ProviderEvent,
  ProviderRequest,
  ProviderStreamOptions,
  ResponseFormat,
  ThinkingOptions,
} from './provider/contract.js'
export type { ContextTooLongErrorOptions, ProviderErrorOptions } from './provider/errors.js'
export { AgentLoopError, ContextTooLongError, ProviderError } from './provider/errors.js'
export type { ToolChoice } from './provider/tool-choice.js'
export { AgentAbortedError } from './run/errors.js'
export type { ApprovalAnswer, RunAgentOptions } from './run/option-checks.js'
export { RunAgentOptionsCheck } from './run/option-checks.js'
export type { AgentRun } from './run/run-agent.js'
export { runAgent } from './run/run-agent.js'
export type { AppliedCompaction } from './session/apply-compaction.js'
export { applyCompaction } from './session/apply-compaction.js'
export type { SessionMessageEntriesOptions } from './session/entries.js'
export { lastEntryId, sessionMessageEntries } from './session/entries.js'
export type { HistoryLimit, SessionOptions } from './session/session-run.js'
export { COMPACTION_SUMMARY_PREFIX, summaryMessage, summaryOf } from './session/summary-message.js'
export type { PrepareStep, PrepareStepState, StepPreparation } from './step/step-control.js'
export type { StopCondition, StopPredicate, StopState, StopWhen } from './stop/stop-conditions.js'
export {
  budgetExceeded,
  maxSteps,
  noToolCalls,
  stopConditions,
  toolCalled,
} from './stop/stop-conditions.js'
export type {
  AgentTool,
  ApprovalCallback,
  ApprovalContext,
  ApprovalDecision,
  ApprovalPolicy,
  DefineToolOptions,
  ToolContext,
  ToolOutput,
} from './tools/define-tool.js'
export { DEFAULT_TOOL_TIMEOUT_MS, defineTool, toolDefinition } from './tools/define-tool.js'
export {
  RepeatedToolCallError,
  ToolAbortedError,
  ToolDeniedError,
  ToolExecutionError,
  ToolInputError,
  ToolInterruptedError,
  ToolOutputError,
  ToolTimeoutError,
  UnknownToolError,
} from './tools/errors.js'
export type { JsonSchemaToolOptions } from './tools/json-schema-tool.js'
export { jsonSchemaTool } from './tools/json-schema-tool.js'
export type { LoopGuardOptions, LoopGuardVerdict } from './tools/loop-guard.js'
export { LoopGuard } from './tools/loop-guard.js'
export type { RunToolCallsOptions, ToolOutcome } from './tools/run-tools.js'
export { runToolCalls } from './tools/run-tools.js'
