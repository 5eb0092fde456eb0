export type { OnUnsupported, PrefillConfig, PrefillConfigInput } from './config.js'
export { OnUnsupportedSchema, PrefillConfigSchema, parsePrefillConfig } from './config.js'
export type {
  DynamicRun,
  PrefillGenerateContext,
  PrefillGenerateInput,
  PrefillGenerator,
} from './dynamic-prefill.js'
export { DynamicPrefillLoader } from './dynamic-prefill.js'
export {
  PrefillGenerateError,
  PrefillReadError,
  PrefillRejectedError,
  PrefillTimeoutError,
} from './errors.js'
export type { FileRead, PrefillCache, PrefillCacheOptions } from './file-cache.js'
export { createPrefillCache } from './file-cache.js'
export type {
  AppliedPrefill,
  ApplyPrefillOptions,
  PrefillFallbackReason,
  PrefillMode,
  PrefillModel,
} from './inject.js'
export { applyPrefill, defaultInstruction, injectPrefill } from './inject.js'
export type {
  PrefillMiddleware,
  PrefillMiddlewareOptions,
  PrefillOptions,
  PrefillState,
} from './middleware.js'
export {
  PREFILL_STATE_KEY,
  PREFILL_TRACE_STAGES,
  PREFILL_VARS_KEY,
  prefill,
} from './middleware.js'
export type { PrefillCandidate, PrefillLoad, ReadPrefillOptions } from './read-prefill.js'
export {
  hasPrefillEnabled,
  loadPrefill,
  modelFamily,
  prefillCandidates,
  readPrefillContent,
} from './read-prefill.js'
export { isPrefillRejection } from './rejection.js'
export type { PrefillMatch, PrefillMatchResult, StrippedContent } from './strip.js'
export {
  ensurePrefillInContent,
  matchPrefill,
  stripPrefillFromContent,
  stripPrefillFromMessage,
  stripPrefillFromResponse,
} from './strip.js'
