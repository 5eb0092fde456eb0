export type {
  CacheCall,
  CacheModelOptions,
  CacheStats,
  CacheUsage,
  MinCacheableEntry,
} from './cache-model.js'
export {
  CACHE_LOOKBACK_BLOCKS,
  DEFAULT_MIN_CACHEABLE_TOKENS,
  MIN_CACHEABLE_TOKENS,
  minCacheableTokens,
} from './cache-model.js'
export type { CacheTtl } from './cache-prefix.js'
export { CACHE_TTL_MS } from './cache-prefix.js'
export {
  EmulatorConfigError,
  ScriptExhaustedError,
  ScriptFailedError,
  TestkitError,
  type TestkitErrorOptions,
} from './errors.js'
export type { RecordedRequest } from './exchange.js'
export type { EmulatorThinkingMode } from './model-capabilities.js'
export type { EmulatorModel } from './models.js'
export { DEFAULT_MODELS } from './models.js'
export { MAX_BODY_DEPTH } from './request-body.js'
export type {
  Fault,
  NormalizedReply,
  ReplyBlock,
  ReplySpec,
  Script,
  ScriptRequest,
  Step,
  TransportOptions,
} from './script.js'
export { normalizeReply } from './script.js'
export type { AnthropicEmulator, AnthropicEmulatorOptions } from './server.js'
export { startAnthropicEmulator } from './server.js'
export { messageEvents, sseFrame } from './stream-events.js'
export { KNOWN_BETAS } from './strict.js'
export { THREADS_BETA_PREFIX } from './threads.js'
export {
  blockTokens,
  requestTokens,
  TOKENS_PER_MEDIA,
  TOKENS_PER_MESSAGE,
  textTokens,
  toolTokens,
} from './token-rule.js'
export { UNSUPPORTED_MAX_TOKENS_MESSAGE } from './validate-chat.js'
export { MAX_CACHE_CONTROL_BLOCKS, NO_PREFILL_MESSAGE } from './validate-request.js'
export type {
  WireErrorBody,
  WireErrorType,
  WireMessage,
  WireMessagesRequest,
  WireRedactedThinkingBlock,
  WireRequestBlock,
  WireRequestMessage,
  WireResponseBlock,
  WireStopReason,
  WireStreamEvent,
  WireTextBlock,
  WireThinkingBlock,
  WireTool,
  WireToolUseBlock,
  WireUsage,
} from './wire-types.js'
