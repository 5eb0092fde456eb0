// `@contextkit/core/cache`: where the prompt-cache breakpoints of a request go, for the code that
// builds requests (agent-loop's model call, `@contextkit/ai-sdk`'s middleware). Pure like the
// root. The rule is in docs/architecture.md ("exports").
export type {
  CacheBreakpoint,
  CacheBreakpointReason,
  CacheMode,
  CachePlacement,
  PlaceCacheBreakpointsInput,
} from './cache-placement.js'
export {
  CACHE_MODES,
  MAX_CACHE_MARKERS,
  placeCacheBreakpoints,
  stableFirst,
  TOOLS_CACHE_MIN_TOKENS,
} from './cache-placement.js'
