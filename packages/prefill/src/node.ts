// `@contextkit/prefill/node`: the Node-only parts (they read PREFILL files and load dynamic prefill modules).
// The pure API is the package root (src/index.ts); see "Package shape" in the root README.
export type { OnUnsupported, PrefillConfig, PrefillConfigInput } from './config.js'
export { OnUnsupportedSchema, PrefillConfigSchema, parsePrefillConfig } from './config.js'
export type {
  DynamicRun,
  PrefillGenerateContext,
  PrefillGenerateInput,
  PrefillGenerator,
} from './dynamic-prefill.js'
export { DynamicPrefillLoader } from './dynamic-prefill.js'
export type { FileRead, PrefillCache, PrefillCacheOptions } from './file-cache.js'
export { createPrefillCache } from './file-cache.js'
export type {
  PrefillMiddleware,
  PrefillOptions,
  PrefillState,
} from './middleware.js'
export { PrefillStateSchema, prefill } from './middleware.js'
export {
  PREFILL_STATE_KEY,
  PREFILL_TRACE_STAGES,
} from './names.js'
export type { PrefillCandidate, PrefillLoad, ReadPrefillOptions } from './read-prefill.js'
export {
  hasPrefillEnabled,
  loadPrefill,
  modelFamily,
  prefillCandidates,
  readPrefillContent,
} from './read-prefill.js'
