// The pure API of @contextkit/prefill: no Node built-ins, safe to bundle for browsers and edge
// runtimes. The Node-only parts are in `@contextkit/prefill/node` (src/node.ts).
export type { OnUnsupported } from './config.js'
export {
  PrefillGenerateError,
  PrefillReadError,
  PrefillRejectedError,
  PrefillTimeoutError,
} from './errors.js'
export type {
  AppliedPrefill,
  ApplyPrefillOptions,
  PrefillFallbackReason,
  PrefillMode,
  PrefillModel,
} from './inject.js'
export { applyPrefill, defaultInstruction, injectPrefill } from './inject.js'
export {
  PREFILL_STATE_KEY,
  PREFILL_TRACE_STAGES,
} from './names.js'
export { isPrefillRejection } from './rejection.js'
export type { PrefillMatch, PrefillMatchResult, StrippedContent } from './strip.js'
export {
  ensurePrefillInContent,
  matchPrefill,
  stripPrefillFromContent,
  stripPrefillFromMessage,
  stripPrefillFromResponse,
} from './strip.js'
