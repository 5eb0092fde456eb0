// The pure API of @contextkit/core, the same in every runtime: no Node built-ins, safe to bundle
// for browsers and edge runtimes. The Node-only parts are in `@contextkit/core/node` (src/node.ts),
// the session log's format for stores and log readers in `@contextkit/core/store` (src/store.ts).
// At most 100 value names (src/surface.test.ts): see "exports" in docs/architecture.md.
export type { CostUsage } from './cost.js'
export { usageCostUsd } from './cost.js'
export { errnoCode } from './errno.js'
export type { ContextkitErrorOptions, OptionKeys, SafeParseIssue, SafeParser } from './errors.js'
export {
  assertArray,
  assertFiniteNumber,
  assertObject,
  assertOptions,
  assertString,
  ConfigurationError,
  ContextkitError,
  describeError,
  describeIssues,
  invalidArgument,
  parseWith,
  ValidationError,
} from './errors.js'
export { estimateTokens } from './estimate.js'
export { isContentBlockArray, isMessageArray, isSectionArray, isToolArray } from './input-checks.js'
export { insertAfterStable } from './insert-after-stable.js'
export { isSpace } from './is-space.js'
export { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js'
export type { LineCount } from './line-count.js'
export { countLines, LineCounter } from './line-count.js'
export {
  MessageListCheck,
  ToolDefinitionCheck,
  ToolListCheck,
  ToolResultContentCheck,
  ToolResultListCheck,
} from './message-checks.js'
export { estimateRequestTokens } from './message-estimate.js'
export type {
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  ImageMediaType,
  JsonSchemaObject,
  Message,
  RedactedThinkingBlock,
  Role,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolDefinition,
  ToolResultBlock,
  Usage,
} from './message-schemas.js'
export { emptyUsage, textMessage, textOf } from './messages.js'
export type {
  ContextMiddleware,
  FinalizeInfo,
  Recovery,
  RunInfo,
  StepInfo,
  TurnContext,
} from './middleware.js'
export {
  CORE_TRACE_STAGES,
  createRunInfo,
  createTurnContext,
  getRunState,
  recordWarning,
  runFinalize,
  runPrepare,
  runPrepareStep,
  runRecover,
  setRunState,
} from './middleware.js'
export { isModelInfo, ModelInfoCheck, THINKING_MODES } from './model-checks.js'
export type { ModelEntry, ModelInfo, ModelPricing, ThinkingMode } from './model-info.js'
export {
  BUILTIN_MODELS,
  BUILTIN_MODELS_AS_OF,
  MODEL_PRICES_AS_OF,
  MODEL_PRICES_SOURCE,
  UNKNOWN_MODEL_DEFAULTS,
} from './model-table.js'
export type { ContextWindowSource } from './models.js'
export { contextWindowSource, getModelInfo, ModelRegistry, registerModel } from './models.js'
export { escapeForPrompt, hasPromptUnsafeChars, PROMPT_UNSAFE_CHARS } from './prompt-text.js'
export { ABORTED, TIMED_OUT, whenAborted, within } from './race.js'
export { randomId } from './random-id.js'
export type {
  ModelsListSource,
  RefreshModelsOptions,
  RefreshModelsResult,
} from './refresh-models.js'
export { refreshModels } from './refresh-models.js'
export type {
  CheckedPath,
  PathInspection,
  PathLimits,
  PathProblem,
} from './relative-path.js'
export { inspectRelativePath } from './relative-path.js'
export type { RequestFit, RequestFitInput } from './request-fit.js'
export { fitRequest, OMISSION_NOTICE_ID } from './request-fit.js'
export { isSealedContent } from './sealed-content.js'
export { isSealedMessage, sealMessages } from './sealed-messages.js'
export type { FitResult, Omission, Section } from './sections.js'
export { fitSections, renderOmissionNotice, renderSections, SectionListCheck } from './sections.js'
export { assertSessionId, isSessionId } from './session-id.js'
export type {
  SessionLease,
  SessionLeaseAttempt,
  SessionLeaseHolder,
  SessionLeaseRequest,
  SessionLeaseStore,
} from './session-lease.js'
export { SessionBusyError, SessionLeaseLostError } from './session-lease.js'
export type {
  AcquireSessionLeaseOptions,
  KeepSessionLeaseOptions,
  KeptSessionLease,
} from './session-lease-hold.js'
export { SessionTooLargeError } from './session-size.js'
export type {
  ApprovalStatus,
  SessionApprovalEntry,
  SessionCompactionEntry,
  SessionCustomEntry,
  SessionEntry,
  SessionHeaderEntry,
  SessionLoadResult,
  SessionMessageEntry,
  SessionStore,
  SessionWarning,
} from './session-store.js'
export { sessionMessages } from './session-store.js'
export type { SessionEntryStream } from './session-stream.js'
export { streamSession } from './session-stream.js'
export type { StateSaveOptions, StateStore, StoredState } from './state-store.js'
export { RevisionConflictError } from './state-store.js'
export type { CalibratedCounter, TokenCounter, TokenCounterOptions } from './tokens.js'
export { calibrate, createTokenCounter, defaultTokenCounter } from './tokens.js'
export type { MemoryTrace, Trace, TraceEvent, TraceOptions } from './trace.js'
export { digest, memoryTrace, noopTrace, sha256Hex } from './trace.js'
export type { TraceEventTextOptions, TraceReader } from './trace-events.js'
